import ReformConcurrency

/// One service's rate limit as its responses report it, shared by every manager of the service:
/// requests slow down as the budget runs low and wait for the reset once it is spent.
final class RateLimitGate: Sendable {
    private struct Window {
        var limit: Int?
        var remaining: Int
        /// When the budget refills, in seconds on the monotonic clock.
        var resetAt: Double?
        /// Which response reported it (counted from 1): a request that waited tells a newer
        /// report from the one it was counted against.
        var generation = 0
    }

    private let window = Guarded<Window?>(nil)
    /// The reset (monotonic seconds) the last "waiting for the reset" was announced for: requests
    /// waiting for the same reset announce it once.
    private let announced = Guarded<Double?>(nil)

    /// Takes what a response said about the limit (`now`: the monotonic clock).
    func update(_ headers: RateLimitHeaders, now: Double) {
        window.withLock { window in
            window = Window(
                limit: headers.limit, remaining: headers.remaining, resetAt: headers.resetIn.map { now + $0 },
                generation: (window?.generation ?? 0) + 1)
        }
    }

    /// Which report the current window comes from (0: none yet).
    var generation: Int { window.withLock { $0?.generation ?? 0 } }

    /// Seconds until the reset when a response that came after report `generation` says the
    /// budget is spent (none left and the reset still to come), without counting a request: what
    /// a request that waited checks again before it goes.
    func spentWait(now: Double, after generation: Int) -> Double? {
        window.withLock { window in
            guard let current = window, current.generation != generation, let resetAt = current.resetAt, current.remaining <= 0,
                resetAt > now
            else { return nil }
            return resetAt - now
        }
    }

    /// Whether a wait for the reset due in `seconds` (from `now`) is the first of its window to be
    /// announced: several requests waiting for one reset say so once.
    func announces(reset seconds: Double, now: Double) -> Bool {
        let resetAt = now + seconds
        return announced.withLock { last in
            if let last, abs(last - resetAt) < 1 { return false }
            last = resetAt
            return true
        }
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
