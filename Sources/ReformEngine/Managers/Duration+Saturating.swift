/// Waits in seconds made into `Duration`s without trapping: a wait read from a pipeline, a
/// server's `Retry-After` or a rate is clamped to what `Duration` and `Int64` nanoseconds hold
/// (reliability audit D8, D9; a `Double` past `Int64.max` nanoseconds used to crash the run).
extension Duration {
    /// The longest wait anything sleeps: about 292 years less a margin, within `Int64` nanoseconds.
    package static let longestWait: Double = 9.2e9

    /// `seconds` as a duration: negative and NaN are zero, infinite and huge are ``longestWait``.
    static func seconds(saturating seconds: Double) -> Duration {
        .nanoseconds(Int64(nanoseconds: seconds))
    }
}

extension Int64 {
    /// `seconds` in nanoseconds, clamped to `0...Duration.longestWait` seconds.
    init(nanoseconds seconds: Double) {
        guard seconds > 0 else {
            self = 0
            return
        }
        self = Int64(Swift.min(seconds, Duration.longestWait) * 1e9)
    }
}
