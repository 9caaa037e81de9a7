import Glibc
import ReformEngine

/// Ctrl-C and SIGTERM during a run: the run is asked to stop (requests cancelled, outputs
/// abandoned, the dead-letter file kept), and exits 130 or 143. If it has not unwound within
/// three seconds, unfinished output files are removed and the process exits anyway.
enum Interruptions {
    /// Posted by the signal handler (`sem_post` is async-signal-safe); the watcher waits on it.
    private nonisolated(unsafe) static let wake: UnsafeMutablePointer<sem_t> = {
        let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
        return semaphore
    }()

    /// Starts watching SIGINT and SIGTERM.
    static func install() {
        _ = wake  // initialised here, never first in the handler
        // The handler only records the signal (an atomic store) and wakes the watcher.
        let handler: @convention(c) (Int32) -> Void = { number in
            RunInterruption.request(number)
            sem_post(Interruptions.wake)
        }
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        // A thread of its own that sleeps until a signal comes: a watcher on a Dispatch or Swift
        // concurrency thread would hold one of the pool's few threads (two on a 2-core machine)
        // for the whole run, and the run's own requests would wait for the pool to grow.
        var watcher = pthread_t()
        let started = pthread_create(&watcher, nil, { _ in
            while sem_wait(Interruptions.wake) != 0 {}  // EINTR: wait again
            sleep(3)
            OutputFile.abandonUnfinished()
            _exit(128 + (RunInterruption.signal ?? SIGTERM))
        }, nil)
        if started == 0 { pthread_detach(watcher) }
    }

    /// The exit status for an interrupted run (128 + the signal), if the run was interrupted.
    static var exitStatus: Int32? { RunInterruption.signal.map { 128 + $0 } }
}
