import ReformSystem

/// A point on the monotonic clock by which something must be done.
package struct Deadline {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    package let nanoseconds: UInt64

    /// The instant `nanoseconds` on `CLOCK_MONOTONIC`.
    package init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The deadline `seconds` from now.
    package static func after(seconds: Double) -> Deadline {
        let span = seconds.isFinite ? UInt64(max(0, min(seconds, 1e9)) * 1e9) : UInt64(1e18)
        return Deadline(nanoseconds: now() &+ span)
    }

    /// The instant `seconds` ago.
    package static func ago(seconds: Double) -> Deadline {
        let span = UInt64(max(0, min(seconds, 1e9)) * 1e9)
        let current = now()
        return Deadline(nanoseconds: current > span ? current - span : 0)
    }

    /// The earlier of two deadlines.
    package static func earlier(_ a: Deadline, _ b: Deadline) -> Deadline { a.nanoseconds <= b.nanoseconds ? a : b }

    /// Milliseconds left for `poll`, rounded up; 0 once passed.
    package var pollMilliseconds: Int32 {
        let current = Deadline.now()
        guard nanoseconds > current else { return 0 }
        return Int32(min((nanoseconds - current + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    /// Whether the deadline has passed.
    package var hasPassed: Bool { Deadline.now() >= nanoseconds }

    private static func now() -> UInt64 { MonotonicClock.nanoseconds() }
}
