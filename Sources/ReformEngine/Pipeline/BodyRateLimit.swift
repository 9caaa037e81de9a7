public import ReformSDK

/// Where a response's body says how much of the service's rate limit is left, for an API that
/// says so there rather than in headers (`graphql: { rate_limit: … }`): GitHub's GraphQL
/// `rateLimit { limit remaining resetAt }`, or a cost extension such as Shopify's.
public struct BodyRateLimit: Sendable {
    /// The requests (or points) left in the window.
    public let remaining: ValuePath
    /// When the window resets: an ISO 8601 date-time, Unix seconds, or seconds from now.
    public let resetAt: ValuePath?
    /// The requests (or points) a window allows.
    public let limit: ValuePath?

    /// Paths into a response's body.
    public init(remaining: ValuePath, resetAt: ValuePath?, limit: ValuePath?) {
        self.remaining = remaining
        self.resetAt = resetAt
        self.limit = limit
    }
}
