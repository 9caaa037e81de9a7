public import ReformYAML

/// A service: base URLs per environment and what every request to it shares.
public struct ServicePlan: Sendable {
    /// The service's name.
    public let name: String
    /// Base URL per environment name; `default` is used when no `--env` is given.
    public let baseURLs: [String: String]
    /// Headers sent with every request, as templates: `${VAR}` is resolved only when a request is
    /// built, so secrets are never held in the plan or printed.
    public let headers: [(name: String, value: InterpolatedString)]
    /// Per-request timeout in seconds.
    public let timeout: Double?
    /// Retry policy, when declared.
    public let retry: RetryPlan?
    /// Where the service is declared.
    public let location: SourceLocation
}

/// When and how a failed request is tried again.
public struct RetryPlan: Sendable, Equatable {
    /// How waits grow between attempts.
    public enum Backoff: String, Sendable, CaseIterable {
        /// The same wait each time.
        case constant
        /// The wait doubles each time (with jitter).
        case exponential
    }

    /// Attempts in all, the first included.
    public let attempts: Int
    /// How waits grow.
    public let backoff: Backoff
    /// The first wait, in seconds.
    public let base: Double
    /// The longest wait, in seconds.
    public let max: Double
    /// What to retry on: status codes, `5xx`-style classes, `timeout`, `reset`.
    public let on: [String]
}
