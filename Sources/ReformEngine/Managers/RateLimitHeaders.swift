/// What a response says of the service's rate limit, from the fields APIs send for it:
/// GitHub's `X-RateLimit-Limit`/`-Remaining`/`-Reset` (the reset as epoch seconds), the IETF
/// draft's `RateLimit-Limit`/`-Remaining`/`-Reset` (the reset in seconds from now), its
/// `RateLimit: limit=100, remaining=0, reset=30`, and the structured `RateLimit: "default";r=0;t=30`
/// of later drafts (the most restrictive policy when several are listed).
struct RateLimitHeaders: Equatable, Sendable {
    /// Calls allowed in the window, when the service says.
    var limit: Int?
    /// Calls left in the window.
    var remaining: Int?
    /// Seconds from now until the window resets, when the service says.
    var resetSeconds: Double?

    /// The limit `response` reports, or `nil` when it reports none; `now` is the wall clock in
    /// seconds since 1970, for resets given as a date.
    init?(_ response: HTTPResponse, now: Double) {
        func integer(_ name: String) -> Int? { response.header(name).flatMap { Int($0.trimmingCharacters(in: " ")) } }
        if let remaining = integer("x-ratelimit-remaining") {
            self.remaining = remaining
            limit = integer("x-ratelimit-limit")
            resetSeconds = integer("x-ratelimit-reset").map { RateLimitHeaders.secondsUntil($0, now: now) }
            return
        }
        if let remaining = integer("ratelimit-remaining") {
            self.remaining = remaining
            limit = integer("ratelimit-limit")
            resetSeconds = integer("ratelimit-reset").map { RateLimitHeaders.secondsUntil($0, now: now) }
            return
        }
        guard let field = response.header("ratelimit"), let parsed = RateLimitHeaders(field: field, now: now) else { return nil }
        self = parsed
    }

    /// The most restrictive policy of a `RateLimit` field, in either draft's syntax.
    init?(field: String, now: Double) {
        var best: RateLimitHeaders?
        for item in RateLimitHeaders.items(of: field) {
            var policy = RateLimitHeaders(limit: nil, remaining: nil, resetSeconds: nil)
            for (key, value) in item {
                switch key {
                case "limit", "q": policy.limit = Int(value)
                case "remaining", "r": policy.remaining = Int(value)
                case "reset", "t": policy.resetSeconds = Int(value).map { RateLimitHeaders.secondsUntil($0, now: now) }
                default: break
                }
            }
            guard let remaining = policy.remaining else { continue }
            if best?.remaining.map({ remaining < $0 }) ?? true { best = policy }
        }
        guard let best else { return nil }
        self = best
    }

    private init(limit: Int?, remaining: Int?, resetSeconds: Double?) {
        self.limit = limit
        self.remaining = remaining
        self.resetSeconds = resetSeconds
    }

    /// Whether no call is left in the window.
    var isSpent: Bool { remaining.map { $0 <= 0 } ?? false }

    /// Whether few calls are left: at most a tenth of the limit, or 10 when the limit is unknown.
    var isLow: Bool {
        guard let remaining else { return false }
        return remaining <= (limit.map { Swift.max(1, $0 / 10) } ?? 10)
    }

    /// A reset value as seconds from now: large values are epoch seconds (GitHub), small ones
    /// seconds from now (the IETF drafts).
    private static func secondsUntil(_ value: Int, now: Double) -> Double {
        value >= 1_000_000_000 ? Swift.max(0, Double(value) - now) : Double(Swift.max(0, value))
    }

    /// The items of a `RateLimit` field as key-value pairs: `limit=100, remaining=0, reset=30` is
    /// one item of three; `"a";r=0;t=30, "b";r=5;t=1` two items of two (the quoted name skipped).
    private static func items(of field: String) -> [[(String, String)]] {
        let pairs = field.split(separator: ",").map { part in
            part.split(separator: ";").compactMap { piece -> (String, String)? in
                let kv = piece.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters(in: " ").lowercased() }
                guard kv.count == 2 else { return nil }
                return (kv[0], kv[1].trimmingCharacters(in: "\""))
            }
        }
        // The older syntax puts one key per comma-separated part: all parts are one policy.
        if pairs.allSatisfy({ $0.count <= 1 }) { return [pairs.flatMap { $0 }] }
        return pairs
    }
}
