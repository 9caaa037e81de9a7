import ReformConcurrency
public import ReformEngine

/// A ``ReformEngine/RunClock`` whose waits end at once: each `sleep` moves its time on by the
/// wait and records it. Give it to ``ReformEngine/RunOptions/clock`` (or a
/// ``ReformEngine/ServiceClient``) and a run that retries or waits for a rate limit takes
/// milliseconds, and a test can require the exact waits:
///
/// ```swift
/// let clock = VirtualClock()
/// var options = RunOptions()
/// options.clock = clock
/// _ = try await harness.run("pipeline.yaml", options: options, transport: transport)
/// #expect(clock.sleeps == [1.05])
/// ```
///
/// Waits of tasks that run at once add up rather than overlap: its time is the sum of every wait.
public final class VirtualClock: RunClock, Sendable {
    private struct State: Sendable {
        var now: Double
        var sleeps: [Double] = []
    }

    private let state: Guarded<State>

    /// A clock at `start` seconds that has not waited yet.
    public init(start: Double = 0) {
        state = Guarded(State(now: start))
    }

    /// Its time: the start plus every wait so far.
    public func now() -> Double { state.withLock { $0.now } }

    /// Every wait asked for, in seconds, in the order asked.
    public var sleeps: [Double] { state.withLock { $0.sleeps } }

    /// Records the wait, moves the time on by it and returns at once (after letting other tasks
    /// run); throws when the task is cancelled, as a real wait would.
    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.sleeps.append(seconds)
            $0.now += max(0, seconds)
        }
        await Task.yield()
        try Task.checkCancellation()
    }
}
