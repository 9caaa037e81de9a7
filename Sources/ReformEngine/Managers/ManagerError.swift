import ReformSDK

/// Why a manager's request produced no landing. Typed, so callers can react by kind, and keeping
/// what came back (status, headers, the start of the body) so nothing has to be guessed.
public struct ManagerError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: String, Sendable, CaseIterable {
        /// Parameters failed their declared checks before takeoff.
        case invalidParams = "invalid-params"
        /// An interceptor vetoed the call.
        case vetoed
        /// No answer within the timeout.
        case timeout
        /// The service could not be reached: refused, reset or no such host.
        case noNetwork = "no-network"
        /// A status the manager does not expect.
        case httpStatus = "http-status"
        /// The service's rate limit is spent and resets later than the retry policy waits.
        case rateLimited = "rate-limited"
        /// The credentials were rejected (401/403), even after a token refresh.
        case credentialsRejected = "credentials-rejected"
        /// The body was not what the manager expects: not JSON, wrong content type, missing paths.
        case invalidBody = "invalid-body"
        /// The response had no content.
        case noContent = "no-content"
        /// The request was cancelled.
        case cancelled
        /// A budget (pages, records, calls, time) ran out.
        case budgetExceeded = "budget-exceeded"
        /// The next page would repeat an earlier one.
        case pagingLoop = "paging-loop"
        /// Nothing was recorded for the request (replay).
        case notRecorded = "not-recorded"
        /// The pipeline or environment does not allow the request to be built.
        case configuration
        /// The request would go to another origin than the service's (a next-page link to another
        /// host or port, a resumed request saved for another `base_url`): the service's
        /// credentials are not sent there, so it is not sent.
        case otherOrigin = "other-origin"
        /// The API answered with errors in its body (a GraphQL response's `errors`, which comes
        /// with status 200).
        case apiErrors = "api-errors"
        /// An export job (`job:`) failed, or did not finish within its `max_wait`.
        case jobFailed = "job-failed"
    }

    /// The kind of failure.
    public let kind: Kind
    /// The manager.
    public let manager: String
    /// The request as `METHOD /path?query` (as the manager built it: no credentials), when one was built.
    public let request: String?
    /// What went wrong and what to do.
    public let message: String
    /// The status that came back, when one did.
    public let status: Int?
    /// The headers that came back.
    public let headers: [QueryItem]
    /// The start of the body that came back, when there was one.
    public let bodyExcerpt: String?

    /// A failure with everything known about it.
    public init(
        _ kind: Kind, manager: String, request: String?, message: String, status: Int? = nil, headers: [QueryItem] = [],
        bodyExcerpt: String? = nil
    ) {
        self.kind = kind
        self.manager = manager
        self.request = request
        self.message = message
        self.status = status
        self.headers = headers
        self.bodyExcerpt = bodyExcerpt
    }

    /// A failure of `kind` that keeps `response`.
    init(_ kind: Kind, manager: String, request: HTTPRequest, message: String, response: HTTPResponse) {
        self.init(
            kind, manager: manager, request: request.matchKey, message: message, status: response.status,
            headers: response.headers, bodyExcerpt: response.excerpt())
    }

    /// A transport failure, with advice for its kind.
    init(_ error: TransportError) {
        let kind: Kind
        switch error.kind {
        case .timeout: kind = .timeout
        case .unreachable, .reset: kind = .noNetwork
        case .cancelled: kind = .cancelled
        case .tooLarge, .undecodable: kind = .invalidBody
        case .notRecorded: kind = .notRecorded
        // A body that could not be written to disk: the machine's setup, not the service.
        case .invalidRequest, .notStored: kind = .configuration
        }
        self.init(kind, manager: error.manager, request: error.request, message: error.message)
    }

    /// `manager 'x': GET /path: message (status 500; body: …)`. A request or message longer than
    /// a few kilobytes (a megabyte cursor an API sent) is cut in the middle, saying how long it
    /// was: an error line stays readable.
    public var description: String {
        var text = "manager '\(manager)': "
        if let request { text += "\(ManagerError.shortened(request)): " }
        text += ManagerError.shortened(message)
        if let bodyExcerpt, !bodyExcerpt.isEmpty, !message.contains("body:") { text += "; body: \(bodyExcerpt)" }
        return text
    }
}

extension ManagerError {
    /// `text`, or its start and end around `… (N characters) …` when it is longer than `limit`.
    static func shortened(_ text: String, limit: Int = 2000) -> String {
        guard text.utf8.count > limit else { return text }
        let count = text.count
        guard count > limit else { return text }
        return String(text.prefix(limit / 2)) + " … (\(count) characters) … " + String(text.suffix(limit / 4))
    }
}

/// A manager's source failed as a whole (not one record): unreadable fixtures, a failed request.
public struct SourceError: Error, Sendable, CustomStringConvertible {
    /// The manager.
    public let manager: String
    /// What went wrong and what to do.
    public internal(set) var message: String
    /// The typed failure behind it, when it came from a request.
    public let cause: ManagerError?

    /// A failure of `manager`'s source.
    public init(manager: String, message: String) {
        self.manager = manager
        self.message = message
        cause = nil
    }

    /// A source failure caused by a manager error.
    public init(_ error: ManagerError) {
        manager = error.manager
        message = error.description.dropFirst("manager '\(error.manager)': ".count).description
        cause = error
    }

    /// `manager 'x': message`.
    public var description: String { "manager '\(manager)': \(message)" }
}
