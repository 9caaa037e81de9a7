package import ReformSDK

/// What a response says about the service's rate limit: GitHub's `X-RateLimit-*` headers, the
/// IETF draft's `RateLimit-Limit`/`-Remaining`/`-Reset`, and its later structured
/// `RateLimit: "default";r=0;t=30` with `RateLimit-Policy: "default";q=100;w=60`.
package struct RateLimitHeaders: Equatable {
    /// Requests allowed in the window, when said.
    package var limit: Int?
    /// Requests left in the window.
    package var remaining: Int
    /// Seconds from now until the window resets (the budget refills), when said.
    package var resetIn: Double?

    /// The rate limit `response` reports, or `nil` when it reports none. `now` is Unix seconds
    /// (GitHub's reset is a Unix time; the IETF forms give seconds from now).
    package static func read(from response: HTTPResponse, now: Double) -> RateLimitHeaders? {
        if let remaining = response.header("x-ratelimit-remaining").flatMap(integer) {
            let reset = response.header("x-ratelimit-reset").flatMap(integer).map { value in
                // A value that small is seconds from now (some APIs), otherwise a Unix time (GitHub).
                value < 1_000_000_000 ? Double(value) : Double(value) - now
            }
            return RateLimitHeaders(limit: response.header("x-ratelimit-limit").flatMap(integer), remaining: remaining, resetIn: reset)
        }
        if let remaining = response.header("ratelimit-remaining").flatMap(integer) {
            return RateLimitHeaders(
                limit: response.header("ratelimit-limit").flatMap(integer), remaining: remaining,
                resetIn: response.header("ratelimit-reset").flatMap(integer).map(Double.init))
        }
        if let field = response.header("ratelimit") {
            let parameters = structuredParameters(field)
            // Draft 7+: `"default";r=0;t=30`; drafts 3-6 combined: `limit=100, remaining=0, reset=30`.
            guard let remaining = parameters["r"] ?? parameters["remaining"] else { return nil }
            let policy = response.header("ratelimit-policy").map(structuredParameters) ?? [:]
            return RateLimitHeaders(
                limit: policy["q"] ?? parameters["limit"], remaining: remaining,
                resetIn: (parameters["t"] ?? parameters["reset"]).map(Double.init))
        }
        return nil
    }

    /// The rate limit a response's body reports where `plan` says (`graphql.rate_limit`), or `nil`
    /// when its `remaining` is not a number. `now` is Unix seconds; the reset is an ISO 8601
    /// date-time, or a number read as a header's is (small: seconds from now; else Unix seconds).
    package static func read(from body: Value, plan: BodyRateLimit, now: Double) -> RateLimitHeaders? {
        func number(_ value: Value?) -> Int? {
            switch value {
            case .int(let n)?: n
            case .double(let d)?: d.isFinite ? Int(saturating: d.rounded(.up)) : nil
            case .string(let text)?: integer(text)
            default: nil
            }
        }
        guard let remaining = number(body[path: plan.remaining]) else { return nil }
        var resetIn: Double?
        if let reset = plan.resetAt.flatMap({ body[path: $0] }) {
            if let text = reset.stringValue, Int(text) == nil, let date = CivilDate.parse(.string(text)) {
                // The date keeps whole seconds; a window shorter than a second needs the fraction too.
                resetIn = Double(date.epochSeconds) + fractionOfSecond(text) - now
            } else if let value = number(reset) {
                resetIn = value < 1_000_000_000 ? Double(value) : Double(value) - now
            }
        }
        return RateLimitHeaders(limit: plan.limit.flatMap { number(body[path: $0]) }, remaining: remaining, resetIn: resetIn)
    }

    /// The fraction of a second an ISO 8601 date-time gives (`…:20.603Z` → 0.603), 0 when none.
    static func fractionOfSecond(_ text: String) -> Double {
        guard let time = text.firstIndex(of: "T"), let dot = text[time...].firstIndex(of: ".") else { return 0 }
        let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
        return Double("0." + digits).map { $0 } ?? 0
    }

    /// A limit as said, except that a negative count of requests left is none left and a reset
    /// further away than anything waits (``Duration/longestWait``, ~292 years) is that far: the
    /// numbers come from the server, and the gate and its messages count with them.
    private init(limit: Int?, remaining: Int, resetIn: Double?) {
        self.limit = limit
        self.remaining = Swift.max(0, remaining)
        self.resetIn = resetIn.map { Swift.min(Swift.max(0, $0), Duration.longestWait) }
    }

    /// Whether `response` is the service refusing for its rate limit (not for the credentials):
    /// a 429, or a 403 that says no requests remain or asks to retry later.
    static func isRateLimited(_ response: HTTPResponse, headers: RateLimitHeaders?) -> Bool {
        if response.status == 429 { return true }
        guard response.status == 403 else { return false }
        if headers?.remaining == 0 { return true }
        if response.header("retry-after") != nil { return true }
        // GitHub's secondary rate limits answer 403 with this message and no headers.
        let body = (response.bodyText ?? response.body.map { JSON.compactString($0) } ?? "").lowercased()
        return body.contains("rate limit")
    }

    /// An integer header value; a fraction rounds up and a value past `Int`'s range is clamped to
    /// it (`1e30`, `99999999999999999999`); NaN and infinity are no value.
    private static func integer(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: " ")
        if let value = Int(trimmed) { return value }
        return Double(trimmed).flatMap { $0.isFinite ? Int(saturating: $0.rounded(.up)) : nil }
    }

    /// `key=value` integer parameters of a structured or comma-separated header field; the
    /// first list member's parameters win.
    private static func structuredParameters(_ field: String) -> [String: Int] {
        var out: [String: Int] = [:]
        for member in field.split(separator: ",") {
            for part in member.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                let key = pair[0].trimmingCharacters(in: " ").lowercased()
                if out[key] == nil, let value = integer(pair[1].trimmingCharacters(in: " ").trimmingCharacters(in: "\"")) {
                    out[key] = value
                }
            }
        }
        return out
    }
}
