import ReformConcurrency
public import ReformEngine
public import ReformSDK

/// A ``ReformEngine/Transport`` that answers from a script instead of the network, for tests of
/// managers, paging and whole runs: each request is matched by method, path and query items to
/// the answers scripted for it, which are given in order. It remembers every request it saw.
///
/// ```swift
/// let transport = ScriptedTransport()
/// transport.on("/items", query: ["page": "1"], .json(#"{"items": [1, 2]}"#))
/// transport.on("/items", query: ["page": "2"], .json(#"{"items": []}"#))
/// ```
///
/// A request nothing was scripted for (or whose answers are used up) fails with a
/// `not-recorded` ``ReformEngine/TransportError`` that names it. Safe to use from several tasks.
public final class ScriptedTransport: Transport, Sendable {
    /// One scripted answer.
    public enum Answer: Sendable {
        /// A response with `status`, `headers` and `body` (parsed as JSON when it is JSON).
        case response(status: Int, headers: [(String, String)], body: String)
        /// A failure of the transport itself (a timeout, a reset, …).
        case failure(TransportError.Kind, message: String)

        /// A `200` (or `status`) response with a JSON body.
        public static func json(_ body: String, status: Int = 200, headers: [(String, String)] = []) -> Answer {
            .response(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
        }
    }

    private struct Rule: Sendable {
        let method: String
        let path: String
        let query: [String: String]
        var answers: [Answer]
    }

    private struct State: Sendable {
        var rules: [Rule] = []
        var requests: [HTTPRequest] = []
        var holds: [Hold] = []
    }

    private let state = Guarded(State())

    /// A transport with nothing scripted yet.
    public init() {}

    /// Scripts `answer` for the next `method` request to `path` whose query has every item of
    /// `query` (other items may be there too). Answers for the same request are given in the
    /// order they were scripted.
    public func on(_ path: String, method: String = "GET", query: [String: String] = [:], _ answer: Answer) {
        state.withLock { state in
            if let index = state.rules.firstIndex(where: { $0.method == method && $0.path == path && $0.query == query }) {
                state.rules[index].answers.append(answer)
            } else {
                state.rules.append(Rule(method: method, path: path, query: query, answers: [answer]))
            }
        }
    }

    /// Holds every `method` request to `path` (whatever its query) in flight until the returned
    /// ``Hold`` is released; each then gets its scripted answer.
    public func hold(_ path: String, method: String = "GET") -> Hold {
        let hold = Hold(method: method, path: path)
        state.withLock { $0.holds.append(hold) }
        return hold
    }

    /// Every request sent so far, in the order they arrived.
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// Every request sent so far as `METHOD /path?query` (query items sorted), as a pipeline's
    /// `requests:` expectations and fixture files name them.
    public var requestKeys: [String] { requests.map(\.matchKey) }

    /// Answers `request` from the script.
    public func send(_ request: HTTPRequest, for manager: ManagerRef) async throws(TransportError) -> HTTPResponse {
        let hold = state.withLock { state in
            state.requests.append(request)
            return state.holds.first { $0.method == request.method && $0.path == request.path }
        }
        if let hold, await !hold.pass() {
            throw TransportError(.cancelled, manager: manager.name, request: request.matchKey, message: "cancelled while held")
        }
        let answer = state.withLock { state -> Answer? in
            guard
                let index = state.rules.firstIndex(where: { rule in
                    rule.method == request.method && rule.path == request.path && !rule.answers.isEmpty
                        && rule.query.allSatisfy { item in request.query.contains { $0.name == item.key && $0.value == item.value } }
                })
            else { return nil }
            return state.rules[index].answers.removeFirst()
        }
        switch answer {
        case nil:
            throw TransportError(
                .notRecorded, manager: manager.name, request: request.matchKey,
                message: "nothing is scripted for this request (or its answers are used up); script it with on(_:method:query:_:)")
        case .failure(let kind, let message)?:
            throw TransportError(kind, manager: manager.name, request: request.matchKey, message: message)
        case .response(let status, let headers, let body)?:
            let fields = headers.map { QueryItem(name: $0.0, value: $0.1) }
            let bytes = Array(body.utf8)
            if let value = try? JSON.parse(bytes) {
                return HTTPResponse(status: status, headers: fields, body: value, byteCount: bytes.count)
            }
            return HTTPResponse(status: status, headers: fields, body: nil, bodyText: body, byteCount: bytes.count)
        }
    }
}
