extension RetryPlan {
    /// Whether the plan retries a response with `status`.
    public func retries(status: Int) -> Bool {
        on.contains(String(status)) || on.contains("\(status / 100)xx")
    }

    /// Whether the plan retries a transport failure of `kind`.
    public func retries(_ kind: TransportError.Kind) -> Bool {
        switch kind {
        case .timeout: on.contains("timeout")
        case .reset: on.contains("reset")
        default: false
        }
    }

    /// Whether requests with `method` may be retried at all.
    public func allows(method: String) -> Bool { methods.contains(method.uppercased()) }

    /// The wait before attempt `attempt` (2 is the first retry): exponential or constant from
    /// `base`, capped at `max`, with jitter (half the wait is random) so clients spread out.
    public func backoff(beforeAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> Double {
        let step = Swift.max(0, attempt - 2)
        let full = backoff == .constant ? base : base * Double(1 << Swift.min(step, 30))
        let capped = Swift.min(full, self.max)
        return capped / 2 + capped / 2 * random
    }
}
