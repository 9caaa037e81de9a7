public import ReformSDK

/// One landed page: the records a manager found in one response, and where they came from.
public struct Landing: Sendable {
    /// The manager.
    public let manager: ManagerRef
    /// The 1-based page number.
    public let page: Int
    /// The records found at the manager's `records:` path; none when they are read from
    /// ``recordFile``.
    public let records: [Value]
    /// Where the page's records are read from when its body was kept in a file (an export job's
    /// result file, read as it is taken, never held whole); `nil` for a page held in memory.
    public var recordFile: RecordFile? = nil
    /// The request as the manager built it (no credentials in it).
    public let request: HTTPRequest
    /// What came back.
    public let response: HTTPResponse
    /// Whether it came from the response cache rather than the network.
    public let cached: Bool
    /// Whether paging has stopped after this page.
    public let isLast: Bool
    /// Why paging stopped, when it has.
    public let stopReason: StopReason?
    /// The request of the next page, when paging goes on (where a resumed run starts).
    public var next: HTTPRequest? = nil
    /// An export job's create and poll exchanges that came before this page (its first), in
    /// order: recorded with it, so that a replay goes through them too.
    public var jobSteps: [JobStep] = []
    /// Seconds from sending the request to its answer, retries and their waits included (`nil`:
    /// answered from the cache or a replay).
    public var seconds: Double? = nil
}

/// One exchange of an export job that lands no records: its create request or a poll.
public struct JobStep: Sendable {
    /// The request as the manager built it.
    public let request: HTTPRequest
    /// What came back.
    public let response: HTTPResponse
}

/// What an interceptor sees of a call in progress.
public struct CallContext: Sendable {
    /// The manager making the call.
    public let manager: ManagerRef
    /// The service it goes to.
    public let service: String
    /// The 1-based attempt (retries count up).
    public let attempt: Int
    /// Replaces every secret value (resolved `${VAR}`s of headers and auth) in `text` with `***`.
    public let redact: @Sendable (String) -> String
}

/// A proposed retry after a failed attempt; interceptors may change it.
public struct RetryDecision: Sendable {
    /// Whether to try again.
    public var retry: Bool
    /// Seconds to wait first.
    public var wait: Double
    /// Why the attempt failed (`status 503`, `timeout`, …).
    public let reason: String
    /// The attempt that failed.
    public let attempt: Int
}
