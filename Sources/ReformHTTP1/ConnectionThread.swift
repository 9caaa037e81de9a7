import ReformConcurrency
import ReformSystem

/// A thread of its own that runs one job at a time for one connection, started on the first job
/// and ended by ``stop()``.
///
/// The built-in HTTP client blocks while it waits for the server (with a deadline, and ready to be
/// aborted). Blocking on a thread of Swift concurrency's pool would hold one of its few threads
/// (as many as cores) that other tasks need; a connection's own thread costs one hand-over each
/// way per request, and a new thread only when a new connection is made.
final class ConnectionThread: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var job: (@Sendable () -> Void)?
    /// Guarded by `lock`.
    private var stopping = false
    /// Guarded by `lock`.
    private var started = false

    /// A thread not yet started.
    init() {}

    /// Runs `job` on the thread (starting it if needed); the previous job must have finished.
    /// Returns `false`, `job` not run, when no thread can be started (the process is out of
    /// threads or address space): the caller fails the exchange. Running it on the calling thread
    /// instead would block a thread that the rest of the run needs (reliability audit M10: a
    /// 50,000-partition run under `ulimit -v` stalled so).
    func run(_ job: @escaping @Sendable () -> Void) -> Bool {
        let start = lock.withLock {
            defer { started = true }
            self.job = job
            lock.signal()
            return !started
        }
        guard start else { return true }
        // The thread holds this object until its loop ends.
        guard !OwnThread.tryStart({ [self] in loop() }) else { return true }
        lock.withLock {
            started = false
            self.job = nil
        }
        return false
    }

    /// Ends the thread once its current job, if any, is done.
    func stop() {
        lock.withLock {
            stopping = true
            lock.signal()
        }
    }

    private func loop() {
        while true {
            let next = lock.withLock {
                while job == nil && !stopping { lock.wait() }
                defer { job = nil }
                return job
            }
            guard let next else { return }
            next()
        }
    }
}
