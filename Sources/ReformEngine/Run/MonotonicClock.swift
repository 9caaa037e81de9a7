#if canImport(Glibc)
import Glibc
#endif

/// Seconds on the monotonic clock, for timings and progress (a vDSO call, no system call).
enum MonotonicClock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
