public import ReformSDK

/// Aspect-oriented hooks around a manager's calls (seeds/004, reason 2). Every method has a
/// default that does nothing, so an interceptor implements only what it cares about (the seed's
/// "child protocol": defaults in an extension, not a base class with empty overrides).
///
/// Order: `shouldCall` (veto), `adapt`, the service's headers and credentials, `finalize`, the
/// call, `afterCall`; on a failed attempt
/// `retryDecision`; then `beforeSuccess`/`afterSuccess` around delivering a landing, or
/// `beforeFailure`/`afterFailure` around delivering a failure.
public protocol Interceptor: Sendable {
    /// Whether the call may go ahead; `false` vetoes it (the manager fails with `vetoed`).
    func shouldCall(_ request: HTTPRequest, context: CallContext) async -> Bool
    /// The request to send instead (add headers, wait for a rate limit).
    func adapt(_ request: HTTPRequest, context: CallContext) async throws(ManagerError) -> HTTPRequest
    /// The request exactly as it will go out (service headers and credentials applied), for a last
    /// change that must see all of it: signing. Runs on every attempt, retries and token refreshes
    /// included, after every interceptor's `adapt`.
    func finalize(_ request: HTTPRequest, context: CallContext) async throws(ManagerError) -> HTTPRequest
    /// Called after every attempt with what came back and how long it took.
    func afterCall(
        _ request: HTTPRequest, result: Result<HTTPResponse, TransportError>, seconds: Double, context: CallContext) async
    /// The retry decision after a failed attempt; return `proposal` to keep the policy's choice.
    func retryDecision(_ proposal: RetryDecision, context: CallContext) async -> RetryDecision
    /// Before a landing is delivered.
    func beforeSuccess(_ landing: Landing) async
    /// After a landing was delivered.
    func afterSuccess(_ landing: Landing) async
    /// Before a failure is delivered.
    func beforeFailure(_ error: ManagerError, manager: ManagerRef) async
    /// After a failure was delivered.
    func afterFailure(_ error: ManagerError, manager: ManagerRef) async
}

extension Interceptor {
    /// Lets every call go ahead.
    public func shouldCall(_ request: HTTPRequest, context: CallContext) async -> Bool { true }
    /// Sends the request unchanged.
    public func adapt(_ request: HTTPRequest, context: CallContext) async throws(ManagerError) -> HTTPRequest { request }
    /// Sends the request unchanged.
    public func finalize(_ request: HTTPRequest, context: CallContext) async throws(ManagerError) -> HTTPRequest { request }
    /// Does nothing.
    public func afterCall(
        _ request: HTTPRequest, result: Result<HTTPResponse, TransportError>, seconds: Double, context: CallContext
    ) async {}
    /// Keeps the policy's decision.
    public func retryDecision(_ proposal: RetryDecision, context: CallContext) async -> RetryDecision { proposal }
    /// Does nothing.
    public func beforeSuccess(_ landing: Landing) async {}
    /// Does nothing.
    public func afterSuccess(_ landing: Landing) async {}
    /// Does nothing.
    public func beforeFailure(_ error: ManagerError, manager: ManagerRef) async {}
    /// Does nothing.
    public func afterFailure(_ error: ManagerError, manager: ManagerRef) async {}
}
