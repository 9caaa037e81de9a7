import Dispatch
import Glibc
import ReformEngine

/// Ctrl-C and SIGTERM during a run: the run is asked to stop (requests cancelled, outputs
/// abandoned, the dead-letter file kept), and exits 130 or 143. If it has not unwound within
/// three seconds, unfinished output files are removed and the process exits anyway.
enum Interruptions {
    /// Starts watching SIGINT and SIGTERM.
    static func install() {
        // The handler only records the signal (an atomic store is safe there); a watcher acts on it.
        let handler: @convention(c) (Int32) -> Void = { number in RunInterruption.request(number) }
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
        DispatchQueue.global().async {
            while RunInterruption.signal == nil { usleep(50_000) }
            sleep(3)
            OutputFile.abandonUnfinished()
            _exit(128 + (RunInterruption.signal ?? SIGTERM))
        }
    }

    /// The exit status for an interrupted run (128 + the signal), if the run was interrupted.
    static var exitStatus: Int32? { RunInterruption.signal.map { 128 + $0 } }
}
