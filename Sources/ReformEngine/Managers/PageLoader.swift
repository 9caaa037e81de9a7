public import ReformSDK

/// Paging inside the manager (seeds/004): builds each page's request, checks what landed, finds the
/// records and decides whether there is a next page. The caller never counts pages.
public struct PageLoader {
    /// The manager being paged.
    public let manager: ManagerPlan
    private let params: [(name: String, value: String)]
    private var page = 0
    private var position: Int
    private var next: HTTPRequest?
    private var seen: Set<String> = []
    private var landedRecords = 0
    /// Whether paging has stopped.
    public private(set) var finished = false
    /// Why paging stopped, once it has (`empty page`, `short page`, `max_pages`, …).
    public private(set) var stopReason: String?

    /// A loader for `manager` with `params` (run and command-line values); throws before takeoff
    /// when a parameter is missing or fails its declared checks.
    public init(manager: ManagerPlan, params: [String: Value]) throws(SourceError) {
        self.manager = manager
        var resolved: [(String, String)] = []
        var problems: [String] = []
        for param in manager.params {
            guard let value = params[param.name] ?? param.defaultValue else {
                if param.required { problems.append("'\(param.name)' is required; give it in the run's params or with --param \(param.name)=VALUE") }
                continue
            }
            if let problem = param.problem(with: value) { problems.append("'\(param.name)': \(problem)") }
            resolved.append((param.name, value.plainText))
        }
        guard problems.isEmpty else {
            throw SourceError(manager: manager.ref.name, message: "invalid parameters: " + problems.joined(separator: "; "))
        }
        self.params = resolved
        position = manager.paging.start
        let startsAt = manager.paging.policy == .page || manager.paging.policy == .offset
        next = PageLoader.request(
            manager, resolved, paging: startsAt ? manager.paging.param.map { ($0, String(manager.paging.start)) } : nil)
    }

    /// The next page's request, or `nil` when paging has stopped.
    public var nextRequest: HTTPRequest? { finished ? nil : next }

    /// The 1-based number of the page the next landing belongs to.
    public var pageNumber: Int { page + 1 }

    /// Checks a landed page, returns its records and prepares the next request (or stops).
    public mutating func land(_ response: HTTPResponse) throws(SourceError) -> [Value] {
        page += 1
        func fail(_ message: String) -> SourceError {
            SourceError(manager: manager.ref.name, message: "page \(page): \(message)")
        }
        guard manager.expect.status.contains(response.status) else {
            throw fail("status \(response.status), expected \(manager.expect.status.map(String.init).joined(separator: " or "))"
                + (response.bodyText.map { "; body: \($0.prefix(200))" } ?? ""))
        }
        if let type = manager.expect.contentType, !(response.header("content-type") ?? "").hasPrefix(type) {
            throw fail("content type '\(response.header("content-type") ?? "none")', expected '\(type)'")
        }
        guard let body = response.body else { throw fail("the body is not JSON") }
        for path in manager.expect.require where body[path: path] == nil {
            throw fail("the body has no '\(path)', which 'expect.require' demands")
        }
        let records: [Value]
        if let path = manager.records {
            guard let found = body[path: path] else { throw fail("the body has no '\(path)' (the manager's 'records:')") }
            records = found.arrayValue ?? (found.isNull ? [] : [found])
        } else {
            records = body.arrayValue ?? [body]
        }
        landedRecords += records.count
        decideNext(after: records, body: body, response: response)
        if !finished, let request = next {
            guard seen.insert(request.matchKey).inserted else {
                throw fail("the next page would repeat an earlier request (\(request.matchKey)); the API's paging loops")
            }
        }
        return records
    }

    private mutating func decideNext(after records: [Value], body: Value, response: HTTPResponse) {
        let paging = manager.paging
        func stop(_ reason: String) {
            finished = true
            stopReason = reason
        }
        if paging.policy == .none { return stop("single request") }
        if let max = paging.maxPages, page >= max { return stop("max_pages (\(max))") }
        if let max = paging.maxRecords, landedRecords >= max { return stop("max_records (\(max))") }
        if paging.stop.contains(.emptyPage), records.isEmpty { return stop("empty page") }
        if paging.stop.contains(.shortPage), let size = paging.sizeParam,
            let pageSize = params.first(where: { $0.name == size }).flatMap({ Int($0.value) }), records.count < pageSize
        {
            return stop("short page (\(records.count) < \(pageSize))")
        }
        switch paging.policy {
        case .none:
            return stop("single request")
        case .page:
            position += 1
        case .offset:
            position += records.count
        case .cursor, .nextURL, .link:
            let token: String?
            if paging.policy == .link {
                token = response.header("link").flatMap(PageLoader.nextLink)
            } else if let path = paging.tokenPath {
                token = body[path: path].flatMap { $0.isNull ? nil : $0.plainText }.flatMap { $0.isEmpty ? nil : $0 }
            } else {
                token = nil
            }
            guard let token else { return stop("no next token") }
            if paging.policy == .cursor {
                next = PageLoader.request(manager, params, paging: paging.param.map { ($0, token) })
            } else {
                next = PageLoader.request(fromURL: token, method: manager.method)
            }
            return
        }
        next = PageLoader.request(manager, params, paging: paging.param.map { ($0, String(position)) })
    }

    private static func request(_ manager: ManagerPlan, _ params: [(name: String, value: String)], paging: (String, String)?) -> HTTPRequest {
        var path = manager.path ?? "/"
        var query: [QueryItem] = []
        for (name, value) in params {
            if path.contains("{\(name)}") {
                path = path.replacing("{\(name)}", with: PercentEncoding.encode(value))
            } else {
                query.append(QueryItem(name: name, value: value))
            }
        }
        if let (name, value) = paging { query.append(QueryItem(name: name, value: value)) }
        return HTTPRequest(method: manager.method, path: path, query: query)
    }

    /// A request for an absolute or relative URL (next-url and Link paging).
    static func request(fromURL url: String, method: String) -> HTTPRequest {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [QueryItem] = []
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query.append(QueryItem(
                    name: PercentEncoding.decode(String(kv[0])), value: kv.count > 1 ? PercentEncoding.decode(String(kv[1])) : ""))
            }
        }
        return HTTPRequest(method: method, path: String(parts.first ?? "/"), query: query)
    }

    /// The `rel="next"` target of an RFC 8288 `Link` header.
    static func nextLink(_ header: String) -> String? {
        for link in header.split(separator: ",") {
            let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: " ") }
            guard let target = parts.first, target.hasPrefix("<"), target.hasSuffix(">") else { continue }
            let isNext = parts.dropFirst().contains { param in
                let p = param.replacing(" ", with: "")
                return p == "rel=\"next\"" || p == "rel=next" || (p.hasPrefix("rel=\"") && p.dropFirst(5).dropLast().split(separator: " ").contains("next"))
            }
            if isNext { return String(target.dropFirst().dropLast()) }
        }
        return nil
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}

/// URL percent-encoding of query and path values (RFC 3986 unreserved characters kept).
enum PercentEncoding {
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let b = utf8.first {
            utf8 = utf8.dropFirst()
            if b == UInt8(ascii: "%"), utf8.count >= 2, let v = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
