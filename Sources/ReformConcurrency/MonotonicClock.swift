import ReformSystem

/// Seconds on the monotonic clock, for timings and progress (a vDSO call, no system call).
package enum MonotonicClock {
    /// Seconds since an arbitrary start.
    package static func now() -> Double {
        Double(nanoseconds()) / 1e9
    }

    /// Nanoseconds since the same start (deadlines of the built-in HTTP client).
    package static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
