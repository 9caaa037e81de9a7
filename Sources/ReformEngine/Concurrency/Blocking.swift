import Dispatch

/// Runs async work from the synchronous run loop: the work starts at once on the concurrency
/// pool, and ``wait()`` blocks the calling (non-pool) thread until it has finished.
final class Blocking<Success: Sendable, Failure: Error>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Guarded<Result<Success, Failure>?>(nil)
    private let task = Guarded<Task<Void, Never>?>(nil)

    init(_ work: @escaping @Sendable () async throws(Failure) -> Success) {
        let started = Task { [self] in
            let outcome: Result<Success, Failure>
            do throws(Failure) { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            self.result.withLock { $0 = outcome }
            self.done.signal()
        }
        task.withLock { $0 = started }
    }

    /// The work's result, waiting for it; `nil` (with the work cancelled) when the run is interrupted.
    func wait() -> Result<Success, Failure>? {
        while true {
            if let ready = result.withLock({ $0 }) { return ready }
            if RunInterruption.signal != nil {
                cancel()
                return nil
            }
            // Signalled only after the result is set; signal again so later waits pass straight through.
            if done.wait(timeout: .now() + .milliseconds(100)) == .success { done.signal() }
        }
    }

    /// Cancels the work (its requests are cancelled and their connections closed).
    func cancel() { task.withLock { $0?.cancel() } }
}
