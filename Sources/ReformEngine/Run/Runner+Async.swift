import ReformConcurrency

extension Runner {
    /// Runs to the end on a thread of its own and returns the counts, without holding a thread of
    /// the concurrency pool meanwhile; use this from async code.
    ///
    /// The synchronous ``run()`` blocks its thread while the live managers' requests run as tasks
    /// on the pool. Called from a task it blocks a pool thread, and as many such runs at once as
    /// the pool has threads (the cores) would leave none for the requests they wait for.
    public func run() async throws(RunError) -> RunSummary {
        let runner = self
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<RunSummary, RunError>, Never>) in
            OwnThread.start {
                do throws(RunError) { continuation.resume(returning: .success(try runner.run())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
