import ReformHTTP1
public import ReformSDK

/// A request a manager wants sent: method, path, query, headers and body, relative to its service.
public struct HTTPRequest: Sendable, Hashable {
    /// The HTTP method.
    public var method: String
    /// The path, starting with `/`.
    public var path: String
    /// Query parameters in the order they are sent.
    public var query: [QueryItem]
    /// Header names and values.
    public var headers: [QueryItem]
    /// The body bytes, when the request has a body.
    public var body: [UInt8]?
    /// `scheme://host[:port]` when the request came from an absolute URL (a next-page link); `nil`
    /// means it goes to the service's base URL.
    public var origin: String?
    /// The base URL the path is appended to (set by the service client before sending).
    public var baseURL: String?
    /// The most seconds the whole exchange may take (set by the service client), `nil` for no limit.
    public var timeout: Double?
    /// Names (lower case) of headers that carry credentials, beyond the standard ones: not sent
    /// to another origin after a redirect. The service client lists every header holding one of
    /// its secrets.
    public var credentialHeaders: Set<String> = []
    /// What an `https://` connection trusts and presents beyond the system's CAs (set by the
    /// service client from the service's `tls:`).
    public var tls: TLSPlan?
    /// The service's `proxy:` (a proxy URL, or `none`); nil: `HTTPS_PROXY`/`HTTP_PROXY` and
    /// `NO_PROXY` decide.
    public var proxy: String?
    /// Whether, going to another origin than the service's, it is sent bare (none of the
    /// service's headers, credentials or interceptors) rather than refused: a job's result file
    /// at a pre-signed storage URL. To the service's own origin it goes as any request.
    public var bareAtOtherOrigin = false
    /// Where a 2XX answer's body goes instead of memory: written to this file as it arrives
    /// (inflated when it came compressed), of any size; the response then has it as its
    /// ``HTTPResponse/bodyFile``. Set for an export's result files; a transport that cannot
    /// store a body this way answers in memory, as for any request.
    public var responseFile: ResponseFile?

    /// A request for `method` and `path` with the given query, headers and body.
    public init(method: String, path: String, query: [QueryItem] = [], headers: [QueryItem] = [], body: [UInt8]? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// `GET /path?a=1&b=2` with the query sorted by name: how requests are matched to recordings
    /// and cached responses (the body, when there is one, is part of it).
    public var matchKey: String {
        let sorted = query.sorted { ($0.name, $0.value) < ($1.name, $1.value) }
        let q = sorted.map { "\(PercentEncoding.encode($0.name))=\(PercentEncoding.encode($0.value))" }.joined(separator: "&")
        var key = q.isEmpty ? "\(method) \(path)" : "\(method) \(path)?\(q)"
        if let body, !body.isEmpty { key += " " + String(decoding: body, as: UTF8.self) }
        return key
    }

    /// The query string as sent (`a=1&b=2`, percent-encoded, in order).
    public var queryString: String {
        query.map { "\(PercentEncoding.encode($0.name))=\(PercentEncoding.encode($0.value))" }.joined(separator: "&")
    }

    /// The absolute URL: the origin or base URL, the path and the query.
    public var url: String {
        let prefix = origin ?? baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
        return query.isEmpty ? prefix + path : prefix + path + "?" + queryString
    }

    /// The first header called `name`, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Sets header `name` to `value`, replacing any header of that name (ignoring case).
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.lowercased() == name.lowercased() }
        headers.append(QueryItem(name: name, value: value))
    }
}

/// A name and a value (a query parameter or a header).
public struct QueryItem: Sendable, Hashable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String

    /// A pair of `name` and `value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// What came back: status, headers and the body (parsed when it was JSON).
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header names and values.
    public var headers: [QueryItem]
    /// The body as JSON, when it was JSON.
    public var body: Value?
    /// The body as text, when it was not JSON (or did not parse: then ``bodyProblem`` says why).
    public var bodyText: String?
    /// Why a body that claimed to be JSON did not parse (`line 1, column 12: …`), when it did not.
    public var bodyProblem: String?
    /// How many body bytes came back.
    public var byteCount: Int
    /// The headers the request went out with (its last attempt's: the service's headers, the
    /// credentials, what interceptors added), secrets redacted; empty for a replayed answer (a
    /// cached one keeps those it was fetched with). What a ``RunWatch`` shows of a page's request.
    public var sentHeaders: [QueryItem] = []
    /// The body, when it was written to a file rather than held (an export's result file, see
    /// ``HTTPRequest/responseFile``): ``body`` and ``bodyText`` are then `nil`.
    public var bodyFile: ResponseFile?

    /// A response with the given status, headers and body.
    public init(
        status: Int, headers: [QueryItem] = [], body: Value?, bodyText: String? = nil, bodyProblem: String? = nil,
        byteCount: Int = 0
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyText = bodyText
        self.bodyProblem = bodyProblem
        self.byteCount = byteCount
    }

    /// The first header called `name`, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The start of the body as text, for error messages (at most `limit` characters).
    public func excerpt(_ limit: Int = 200) -> String? {
        // The server's bytes, about to be quoted in a message: control characters escaped.
        if let bodyText { return ControlEscapes.escaping(String(bodyText.prefix(limit))) }
        if let body { return String(JSON.compactString(body).prefix(limit)) }
        return nil
    }
}

/// Sends requests (seeds/002): swapping the transport — live HTTP, recorded fixtures — makes a
/// pipeline testable without stubbing anything.
public protocol Transport: Sendable {
    /// Sends `request` for `manager` and returns what came back.
    func send(_ request: HTTPRequest, for manager: ManagerRef) async throws(TransportError) -> HTTPResponse
}

/// A request could not be answered at all (no response to look at).
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it was.
    public enum Kind: String, Sendable {
        /// No answer within the timeout.
        case timeout
        /// The server refused the connection, or the host has no address.
        case unreachable
        /// The connection was reset or closed before the response was complete.
        case reset
        /// The request was cancelled (by a takeoff policy, the caller, or the run ending).
        case cancelled
        /// The response body was larger than the limit (or inflates past it).
        case tooLarge
        /// The body is not what its `Content-Encoding` (or gzip content type) says.
        case undecodable
        /// The body could not be written to its file (an export's result file: the disk is full,
        /// say).
        case notStored
        /// Nothing was recorded for this request (replay).
        case notRecorded
        /// The request could not be built (a bad URL).
        case invalidRequest
    }

    /// What kind of failure it was.
    public let kind: Kind
    /// The manager whose request failed.
    public let manager: String
    /// The request, as `METHOD /path?query`.
    public let request: String
    /// What went wrong and what to do.
    public let message: String

    /// A failure of `kind` for `manager`'s `request`.
    public init(_ kind: Kind, manager: String, request: String, message: String) {
        self.kind = kind
        self.manager = manager
        self.request = request
        self.message = message
    }

    /// `manager 'x': GET /path: message`.
    public var description: String { "manager '\(manager)': \(request): \(message)" }
}
