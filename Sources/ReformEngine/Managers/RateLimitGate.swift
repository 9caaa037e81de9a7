import ReformConcurrency

/// One service's rate limit as its responses report it, shared by every manager of the service:
/// requests slow down as the budget runs low and wait for the reset once it is spent.
final class RateLimitGate: Sendable {
    private struct Window {
        var limit: Int?
        var remaining: Int
        /// When the budget refills, in seconds on the monotonic clock.
        var resetAt: Double?
    }

    private let window = Guarded<Window?>(nil)

    /// Takes what a response said about the limit (`now`: the monotonic clock).
    func update(_ headers: RateLimitHeaders, now: Double) {
        window.withLock { $0 = Window(limit: headers.limit, remaining: headers.remaining, resetAt: headers.resetIn.map { now + $0 }) }
    }

    /// Seconds to wait before the next request, counting it against the budget: none while the
    /// budget lasts; the rest of the window spread over the requests left once fewer than a
    /// tenth remain; until the reset once none remain (`spent`).
    func delay(now: Double) -> (seconds: Double, spent: Bool) {
        window.withLock { window in
            guard var current = window, let resetAt = current.resetAt else { return (0, false) }
            let left = resetAt - now
            guard left > 0 else {
                window = nil
                return (0, false)
            }
            defer {
                current.remaining = Swift.max(0, current.remaining - 1)
                window = current
            }
            if current.remaining <= 0 { return (left, true) }
            let low = Swift.max(1, (current.limit ?? 0) / 10)
            guard current.remaining <= low else { return (0, false) }
            return (left / Double(current.remaining + 1), false)
        }
    }
}
