import ReformConcurrency

extension Runner {
    /// Runs to the end on a thread of its own and returns the counts, without holding a thread of
    /// the concurrency pool meanwhile; use this from async code.
    ///
    /// The synchronous ``run()`` blocks its thread while the live managers' requests run as tasks
    /// on the pool. Called from a task it blocks a pool thread, and as many such runs at once as
    /// the pool has threads (the cores) would leave none for the requests they wait for.
    ///
    /// Cancelling the awaiting task stops this run alone (a ``StopToken`` of its own that follows
    /// ``RunOptions/stop``): it unwinds as on Ctrl-C and throws ``RunError/Code/interrupted``,
    /// its outputs abandoned.
    public func run() async throws(RunError) -> RunSummary {
        var options = options
        let stop = StopToken(following: options.stop)
        options.stop = stop
        let runner = Runner(pipeline: pipeline, options: options)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<RunSummary, RunError>, Never>) in
                OwnThread.start {
                    do throws(RunError) { continuation.resume(returning: .success(try runner.run())) } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
            }
        } onCancel: {
            stop.cancel()
        }
        return try result.get()
    }
}
