import ReformEngine
import ReformSystem

/// Ctrl-C, SIGTERM and SIGHUP (a closed terminal or SSH session) during a run: the run is asked
/// to stop (requests cancelled, outputs abandoned, the dead-letter file kept), and exits 130, 143
/// or 129. If it has not unwound within three seconds, unfinished outputs are removed, the
/// dead-letter file's complete lines are put in place, and the process exits anyway.
enum Interruptions {
    /// Posted by the signal handler (`sem_post` is async-signal-safe); the watcher waits on it.
    private nonisolated(unsafe) static let wake: UnsafeMutablePointer<sem_t> = {
        let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
        return semaphore
    }()

    /// The signals that stop a run.
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Whether ``install()`` ran (a `--watch` run installs once, for all its runs).
    private nonisolated(unsafe) static var installed = false

    /// Starts watching ``signals``; once per process.
    static func install() {
        guard !installed else { return }
        installed = true
        _ = wake  // initialised here, never first in the handler
        runThread = pthread_self()
        // The handler only records the signal (an atomic store) and wakes the watcher.
        let handler: @convention(c) (Int32) -> Void = { number in
            RunInterruption.request(number)
            sem_post(Interruptions.wake)
        }
        for number in signals {
            var action = sigaction(handler: handler)
            sigaction(number, &action, nil)
        }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in signals { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        // A thread of its own that sleeps until a signal comes: a watcher on a Dispatch or Swift
        // concurrency thread would hold one of the pool's few threads (two on a 2-core machine)
        // for the whole run, and the run's own requests would wait for the pool to grow.
        _ = DetachedThread.start {
            while sem_wait(Interruptions.wake) != 0 {}  // EINTR: wait again
            // The signal may have reached another thread: send it to the run's thread too, so
            // that a read or open blocked there (a FIFO, a pipe) returns and the run unwinds,
            // keeping the dead-letter file whole.
            if let runThread = Interruptions.runThread { pthread_kill(runThread, RunInterruption.signal ?? SIGTERM) }
            sleep(3)
            OutputFile.settleUnfinished()
            let note = "reform: interrupted: the run did not stop within 3 s; no output written, dead letters so far kept\n"
            _ = note.withCString { write(2, $0, strlen($0)) }
            _exit(128 + (RunInterruption.signal ?? SIGTERM))
        }
    }

    /// The thread that runs the pipeline (the one that called ``install()``).
    private nonisolated(unsafe) static var runThread: pthread_t?

    /// The exit status for an interrupted run (128 + the signal), if the run was interrupted.
    static var exitStatus: Int32? { RunInterruption.signal.map { 128 + $0 } }
}
