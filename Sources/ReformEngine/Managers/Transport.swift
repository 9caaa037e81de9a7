public import ReformSDK

/// A request a manager wants sent: method, path, query and headers, relative to its service.
public struct HTTPRequest: Sendable, Hashable {
    /// The HTTP method.
    public var method: String
    /// The path, starting with `/`.
    public var path: String
    /// Query parameters in the order they are sent.
    public var query: [QueryItem]
    /// Header names and values.
    public var headers: [QueryItem]

    /// A request for `method` and `path` with the given query and headers.
    public init(method: String, path: String, query: [QueryItem] = [], headers: [QueryItem] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// `GET /path?a=1&b=2` with the query sorted by name: how requests are matched to recordings.
    public var matchKey: String {
        let sorted = query.sorted { ($0.name, $0.value) < ($1.name, $1.value) }
        let q = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        return q.isEmpty ? "\(method) \(path)" : "\(method) \(path)?\(q)"
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
    /// The body as text, when it was not JSON.
    public var bodyText: String?

    /// A response with the given status, headers and body.
    public init(status: Int, headers: [QueryItem] = [], body: Value?, bodyText: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyText = bodyText
    }

    /// The first header called `name`, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Sends requests (seeds/002): swapping the transport — live HTTP, recorded fixtures — makes a
/// pipeline testable without stubbing anything.
public protocol Transport: Sendable {
    /// Sends `request` for `manager` and returns what came back.
    func send(_ request: HTTPRequest, for manager: ManagerRef) async throws(TransportError) -> HTTPResponse
}

/// A request could not be answered.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The manager whose request failed.
    public let manager: String
    /// The request, as `METHOD /path?query`.
    public let request: String
    /// What went wrong and what to do.
    public let message: String

    /// `manager 'x': GET /path: message`.
    public var description: String { "manager '\(manager)': \(request): \(message)" }
}
