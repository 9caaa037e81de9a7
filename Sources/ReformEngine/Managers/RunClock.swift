import ReformConcurrency

/// The time a run's requests wait by: retry backoff, `Retry-After`, rate-limit pacing and resets.
///
/// Runs use ``SystemClock``. A test gives ``RunOptions/clock`` (or a ``ServiceClient``) a clock of
/// its own, such as `VirtualClock` from `ReformEngineTesting`, whose waits end at once and are
/// recorded, so retries and rate limits are tested in milliseconds and their waits are exact.
public protocol RunClock: Sendable {
    /// Seconds since an arbitrary start, never going back.
    func now() -> Double
    /// Waits `seconds` (clamped to about 292 years); throws when the task is cancelled.
    func sleep(seconds: Double) async throws
}

/// The system's monotonic clock, and `Task.sleep`.
public struct SystemClock: RunClock {
    /// The system clock.
    public init() {}

    /// Seconds of the monotonic clock (`CLOCK_MONOTONIC`).
    public func now() -> Double { MonotonicClock.now() }

    /// Sleeps the task `seconds`.
    public func sleep(seconds: Double) async throws {
        try await Task.sleep(for: .seconds(saturating: seconds))
    }
}
