public import ReformSDK
import Synchronization

/// Answers requests from recorded exchanges: the offline default source of a manager.
///
/// A manager's `fixtures:` folder holds one file per exchange (`.json` or `.yaml`), read in name
/// order:
///
/// ```yaml
/// request:  { method: GET, path: /zufang/list, query: { city: shanghai, page: "1" } }
/// response: { status: 200, headers: { content-type: application/json }, body: { data: { list: [] } } }
/// ```
///
/// A request is answered by the exchange recorded for the same method, path and query (in any
/// order); a request nobody recorded is an error that lists what was recorded. A request recorded
/// several times (an export job's polls) gets its answers in the order of their files, the last
/// one again after that.
public struct ReplayTransport: Transport {
    struct Exchange: Sendable {
        let file: String
        let request: HTTPRequest
        let response: HTTPResponse
        /// The recorded body's file beside the exchange (`body_file:`), opened when it is answered.
        var bodyFile: String? = nil
    }

    private let exchanges: [Int: [String: [Exchange]]]
    private let folders: [Int: String]
    /// How many times each manager's request was answered: the next of its recorded answers.
    private let served = Served()

    private final class Served: Sendable {
        let counts = Mutex<[String: Int]>([:])
    }

    /// A transport over the fixtures of `managers`; throws when a fixture file cannot be read.
    /// `loadDocument` reads one file for the manager named.
    public init(managers: [ManagerPlan], loadDocument: (_ path: String, _ manager: String) throws(SourceError) -> Value) throws(SourceError)
    {
        var exchanges: [Int: [String: [Exchange]]] = [:]
        var folders: [Int: String] = [:]
        for manager in managers {
            guard let folder = manager.fixtures else { continue }
            folders[manager.ref.index] = folder
            var byKey: [String: [Exchange]] = [:]
            for name in (FilePaths.contents(of: folder) ?? []).sorted()
            where name.hasSuffix(".json") || name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
                let path = FilePaths.resolve(name, against: folder)
                let exchange = try ReplayTransport.exchange(from: try loadDocument(path, manager.ref.name), file: path, manager: manager)
                byKey[exchange.request.matchKey, default: []].append(exchange)
            }
            exchanges[manager.ref.index] = byKey
        }
        self.exchanges = exchanges
        self.folders = folders
    }

    /// The recorded response for `request`.
    public func send(_ request: HTTPRequest, for manager: ManagerRef) async throws(TransportError) -> HTTPResponse {
        try answer(request, for: manager)
    }

    /// The recorded response for `request`, synchronously.
    public func answer(_ request: HTTPRequest, for manager: ManagerRef) throws(TransportError) -> HTTPResponse {
        guard let recorded = exchanges[manager.index] else {
            throw TransportError(
                .notRecorded, manager: manager.name, request: request.matchKey,
                message: "manager has no 'fixtures:' folder to replay; declare one, or pass --input \(manager.name)=FILE")
        }
        guard !recorded.isEmpty || FilePaths.isDirectory(folders[manager.index] ?? "") else {
            throw TransportError(
                .notRecorded, manager: manager.name, request: request.matchKey,
                message: "its fixtures folder \(folders[manager.index] ?? "") does not exist; record it with "
                    + "'reform run --record' (against the live API), or use --live")
        }
        guard let answers = recorded[request.matchKey], let last = answers.last else {
            let known = recorded.keys.sorted().prefix(5).joined(separator: "; ")
            throw TransportError(
                .notRecorded, manager: manager.name, request: request.matchKey,
                message: "no recorded exchange for this request in \(folders[manager.index] ?? "fixtures") "
                    + "(recorded: \(known.isEmpty ? "none" : known)); re-record with 'reform run --record'")
        }
        guard answers.count > 1 else { return try ReplayTransport.response(of: last, for: manager, request: request) }
        let turn = served.counts.withLock { counts in
            defer { counts["\(manager.index) \(request.matchKey)", default: 0] += 1 }
            return counts["\(manager.index) \(request.matchKey)", default: 0]
        }
        return try ReplayTransport.response(of: answers[min(turn, answers.count - 1)], for: manager, request: request)
    }

    /// The recorded response, with its body file opened when it has one.
    private static func response(of exchange: Exchange, for manager: ManagerRef, request: HTTPRequest) throws(TransportError)
        -> HTTPResponse
    {
        guard let path = exchange.bodyFile else { return exchange.response }
        var response = exchange.response
        do { response.bodyFile = try ResponseFile.fixture(path) } catch {
            throw TransportError(
                .notRecorded, manager: manager.name, request: request.matchKey,
                message: "\(exchange.file) names its body file, but \(error.description); re-record with 'reform run --record'")
        }
        response.byteCount = response.bodyFile?.byteCount ?? 0
        return response
    }

    private static func exchange(from document: Value, file: String, manager: ManagerPlan) throws(SourceError) -> Exchange {
        func fail(_ message: String) -> SourceError {
            SourceError(manager: manager.ref.name, message: "\(file): \(message)")
        }
        guard case .object(let top) = document else { throw fail("an exchange must be a mapping with 'request' and 'response'") }
        guard case .object(let req)? = top["request"] else { throw fail("missing 'request' mapping") }
        guard case .object(let res)? = top["response"] else { throw fail("missing 'response' mapping") }
        var query: [QueryItem] = []
        if case .object(let q)? = req["query"] {
            for member in q.members { query.append(QueryItem(name: member.key, value: member.value.plainText)) }
        }
        let method = req["method"]?.stringValue?.uppercased() ?? manager.method
        let path = req["path"]?.stringValue ?? manager.path ?? "/"
        guard case .int(let status)? = res["status"] else { throw fail("'response.status' must be a status code") }
        var headers: [QueryItem] = []
        if case .object(let h)? = res["headers"] {
            for member in h.members { headers.append(QueryItem(name: member.key, value: member.value.plainText)) }
        }
        let bodyText = res["body_text"]?.stringValue
        // The size the body had on the wire, as near as a replay can tell: its compact JSON.
        let byteCount = bodyText?.utf8.count ?? res["body"].map { JSON.compactString($0).utf8.count } ?? 0
        let response = HTTPResponse(status: status, headers: headers, body: res["body"], bodyText: bodyText, byteCount: byteCount)
        let body = req["body"].map { $0.stringValue ?? JSON.compactString($0) }.map { Array($0.utf8) }
        var bodyFile: String?
        if let name = res["body_file"] {
            guard let name = name.stringValue, !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
                throw fail("'response.body_file' must name a file beside the exchange, like 004.body.csv.gz")
            }
            bodyFile = FilePaths.resolve(name, against: FilePaths.folder(of: file))
        }
        return Exchange(
            file: file, request: HTTPRequest(method: method, path: path, query: query, body: body), response: response, bodyFile: bodyFile)
    }
}
