import ReformHTTP1
public import ReformSDK

/// Paging inside the manager (seeds/004): builds each page's request, checks what landed, finds the
/// records and decides whether there is a next page. The caller never counts pages.
///
/// The loader is transport-free: replay, live HTTP and the library's ``APIManager`` all drive it the
/// same way (`nextRequest`, send, `land`).
public struct PageLoader: Sendable {
    /// The manager being paged.
    public let manager: ManagerPlan
    private let params: [(name: String, value: Value)]
    private var page = 0
    private var position: Int
    var next: HTTPRequest?
    private var seen = RequestHistory()
    private var landedRecords = 0
    /// What the manager has spent so far against its budget.
    public private(set) var spent: BudgetMeter
    /// Whether paging has stopped.
    public internal(set) var finished = false
    /// Why paging stopped, once it has (`empty page`, `short page`, `max_pages`, …).
    public internal(set) var stopReason: StopReason?
    /// How far an export job (`job:`) has got, for a job manager.
    var job: JobProgress?
    /// The clock the time budget and a job's `max_wait` are kept by.
    let clock: any RunClock
    /// The records of the page landed last, when they are to be read from its body's file (an
    /// export's result file) rather than held: ``land(_:)`` then returned none.
    public private(set) var landedFile: RecordFile?
    /// `budget.max_records` over the records of this paging's result files, made with the first.
    private var fileBudget: RecordBudget?

    /// A loader for `manager` with `params` (run and command-line values), keeping its time budget
    /// by `clock`; throws before takeoff when a parameter is missing or fails its declared checks.
    public init(manager: ManagerPlan, params: [String: Value], clock: any RunClock = SystemClock()) throws(ManagerError) {
        spent = BudgetMeter(clock: clock)
        self.clock = clock
        self.manager = manager
        var resolved: [(String, Value)] = []
        var problems: [String] = []
        for param in manager.params {
            guard let value = params[param.name] ?? param.defaultValue else {
                if param.required {
                    problems.append("'\(param.name)' is required; give it in the run's params or with --param \(param.name)=VALUE")
                }
                continue
            }
            if let problem = param.problem(with: value) { problems.append("'\(param.name)': \(problem)") }
            resolved.append((param.name, value))
        }
        // The cursor parameter of an incremental manager need not be declared: the run gives it.
        if let cursor = manager.incremental?.param, !manager.params.contains(where: { $0.name == cursor }), let value = params[cursor] {
            resolved.append((cursor, value))
        }
        guard problems.isEmpty else {
            throw ManagerError(
                .invalidParams, manager: manager.ref.name, request: nil,
                message: "invalid parameters: " + problems.joined(separator: "; "))
        }
        self.params = resolved
        position = manager.paging.start
        if let plan = manager.job {
            job = JobProgress(phase: .create)
            next = PageLoader.request(plan.create, of: manager, resolved)
            return
        }
        let startsAt = manager.paging.policy == .page || manager.paging.policy == .offset
        next = PageLoader.request(
            manager, resolved, paging: startsAt ? manager.paging.param.map { ($0, .int(manager.paging.start)) } : nil)
    }

    /// Goes on from `request` as the next page, `pagesDone` pages having landed before it (a run
    /// resuming from its last checkpoint).
    public mutating func resume(at request: HTTPRequest, pagesDone: Int) {
        next = request
        page = pagesDone
        spent.resume(pages: pagesDone)
        // Page and offset paging count on from the position the request asks for.
        if manager.paging.policy == .page || manager.paging.policy == .offset, let param = manager.paging.param {
            let inBody = manager.bodyTemplate.flatMap { template in request.body.flatMap { template.value(named: param, in: $0) } }
            let sent = request.query.last(where: { $0.name == param })?.value ?? inBody?.plainText
            if let value = sent.flatMap({ Int($0) }) { position = value }
        }
    }

    /// The next page's request, or `nil` when paging has stopped.
    public var nextRequest: HTTPRequest? { finished ? nil : next }

    /// The 1-based number of the page the next landing belongs to.
    public var pageNumber: Int { page + 1 }

    /// Counts one HTTP call against the budget; throws when the calls or the time are spent.
    public mutating func spendCall() throws(ManagerError) {
        try spent.spendCall(against: manager.budget, manager: manager.ref.name)
    }

    /// Checks a landed page, returns its records and prepares the next request (or stops).
    public mutating func land(_ response: HTTPResponse) throws(ManagerError) -> [Value] {
        page += 1
        let sent = next
        func fail(_ kind: ManagerError.Kind, _ message: String) -> ManagerError {
            ManagerError(
                kind, manager: manager.ref.name, request: sent?.matchKey, message: "page \(page): \(message)", status: response.status,
                headers: response.headers, bodyExcerpt: response.excerpt())
        }
        guard manager.expect.status.contains(response.status) else {
            let expected = manager.expect.status.map(String.init).joined(separator: " or ")
            if response.status == 401 || response.status == 403 {
                throw fail(
                    .credentialsRejected,
                    "status \(response.status): the service rejected the credentials; check the variables its 'auth', 'headers' or 'sign' use"
                )
            }
            if response.status == 404 && page == 1 {
                throw fail(
                    .httpStatus,
                    "status 404, expected \(expected): the service has no \(sent?.path ?? "such path"); check the manager's path ('\(manager.path ?? "/")'), "
                        + "the parameters that fill it, and the service's base_url")
            }
            throw fail(.httpStatus, "status \(response.status), expected \(expected)")
        }
        if let type = manager.expect.contentType, !(response.header("content-type") ?? "").hasPrefix(type) {
            throw fail(.invalidBody, "content type '\(response.header("content-type") ?? "none")', expected '\(type)'")
        }
        landedFile = nil
        var response = response
        if let file = response.bodyFile {
            if manager.streamsBodies {
                if fileBudget == nil, let max = manager.budget.maxRecords { fileBudget = RecordBudget(max: max, before: spent.records) }
                landedFile = RecordFile(
                    file: file, format: manager.format, source: "\(sent?.method ?? "GET") \(sent?.path ?? "/")", csv: manager.csv,
                    records: manager.records,
                    manager: manager.ref.name, budget: fileBudget)
                try spent.land(pages: 1, records: 0, against: manager.budget, manager: manager.ref.name)
                decideNext(after: [], body: .null, response: response)
                return []
            }
            // A recorded body file for a manager that holds its bodies (JSON under a `records:`
            // path, a paged manager): the file's bytes as a body.
            // Read whole as a replayed body is (a fixture is the user's own file), within the
            // transport's default limit, inflated.
            let limit = LiveTransport.defaultMaxBodyBytes
            let tooLarge = fail(
                .invalidBody,
                "the recorded body \(file.path) is larger than \(limit) bytes, and this manager holds its bodies whole "
                    + "(JSON under a 'records:' path, or a page of a paged manager)")
            guard file.isGzip || file.byteCount <= limit else { throw tooLarge }
            var bytes = file.read(min(file.byteCount, limit + 1), at: 0)
            if file.isGzip {
                let gzip = [QueryItem(name: "Content-Type", value: "application/gzip")]
                do { bytes = try ContentDecoding.decoded(bytes, headers: gzip, limit: limit) ?? bytes } catch {
                    if case .tooLarge = error { throw tooLarge }
                    throw fail(.invalidBody, "the recorded body \(file.path) \(error.reason)")
                }
            }
            response = LiveTransport.response(status: response.status, headers: response.headers, bytes: bytes)
        }
        let records: [Value]
        if manager.format != .json {
            // A text body (a JSON-looking one was parsed: its text is the body's JSON form).
            let text = response.bodyText ?? response.body.map { $0.stringValue ?? JSON.compactString($0) } ?? ""
            do { records = try ResponseRows.records(text, format: manager.format, path: manager.records, csv: manager.csv) } catch {
                throw fail(.invalidBody, "the \(manager.format.rawValue) body \(error.description); nothing of this page was landed")
            }
        } else if let body = response.body {
            if manager.graphQL, let problem = GraphQLErrors.summary(of: body) {
                throw fail(.apiErrors, "the GraphQL response has errors: \(problem); nothing of this page was landed")
            }
            for path in manager.expect.require where body[path: path] == nil {
                throw fail(.invalidBody, "the body has no '\(path)', which 'expect.require' demands")
            }
            if let path = manager.records {
                guard let found = body[path: path] else {
                    throw fail(.invalidBody, "the body has no '\(path)' (the manager's 'records:')")
                }
                records = found.arrayValue ?? (found.isNull ? [] : [found])
            } else {
                records = body.arrayValue ?? [body]
            }
        } else if let problem = response.bodyProblem {
            throw fail(.invalidBody, "the body is not valid JSON (\(problem)); nothing of this page was landed")
        } else if response.byteCount == 0 && response.bodyText?.isEmpty != false {
            guard response.status == 204, manager.expect.require.isEmpty else {
                throw fail(
                    .noContent,
                    "the response has no content"
                        + (manager.expect.require.isEmpty
                            ? "; if an empty answer means no records, expect status 204" : ", and 'expect.require' needs a body"))
            }
            records = []
        } else {
            throw fail(
                .invalidBody,
                "the body is not JSON (content type '\(response.header("content-type") ?? "none")'); nothing of this page was landed")
        }
        landedRecords += records.count
        try spent.land(pages: 1, records: records.count, against: manager.budget, manager: manager.ref.name)
        decideNext(after: records, body: response.body ?? .null, response: response)
        if !finished, let request = next {
            guard seen.insert(request.matchKey) else {
                throw fail(.pagingLoop, "the next page would repeat an earlier request (\(request.matchKey)); the API's paging loops")
            }
        }
        return records
    }

    private mutating func decideNext(after records: [Value], body: Value, response: HTTPResponse) {
        let paging = manager.paging
        func stop(_ reason: StopReason) {
            finished = true
            stopReason = reason
        }
        if case .results(let urls, let index)? = job?.phase {
            guard index + 1 < urls.count else { return stop(StopReason(.allResults, limit: urls.count)) }
            job?.phase = .results(urls: urls, index: index + 1)
            next = PageLoader.resultRequest(urls[index + 1])
            return
        }
        if paging.policy == .none { return stop(StopReason(.singleRequest)) }
        if let max = paging.maxPages, page >= max { return stop(StopReason(.maxPages, limit: max)) }
        if let max = paging.maxRecords, landedRecords >= max { return stop(StopReason(.maxRecords, limit: max)) }
        if paging.stop.contains(.emptyPage), records.isEmpty { return stop(StopReason(.emptyPage)) }
        if let path = paging.hasMore, !(body[path: path].map(PageLoader.isTrue) ?? false) { return stop(StopReason(.noMorePages)) }
        if paging.stop.contains(.shortPage), let size = paging.sizeParam,
            let pageSize = params.first(where: { $0.name == size }).flatMap({ Int($0.value.plainText) }), records.count < pageSize
        {
            return stop(StopReason(.shortPage, records: records.count, limit: pageSize))
        }
        switch paging.policy {
        case .none:
            return stop(StopReason(.singleRequest))
        case .page:
            position += 1
        case .offset:
            position += records.count
        case .cursor, .nextURL, .link:
            let token: String?
            if paging.policy == .link {
                token = response.header("link").flatMap(LinkHeader.next)
            } else if let header = paging.tokenHeader {
                token = response.header(header).flatMap { $0.isEmpty ? nil : $0 }
            } else if let path = paging.tokenPath {
                token = body[path: path].flatMap { $0.isNull ? nil : $0.plainText }.flatMap { $0.isEmpty ? nil : $0 }
            } else {
                token = nil
            }
            guard let token else { return stop(StopReason(paging.policy == .link ? .noNextLink : .noNextToken)) }
            if paging.policy == .cursor {
                next = PageLoader.request(manager, params, paging: paging.param.map { ($0, .string(token)) })
            } else {
                next = PageLoader.request(fromURL: token, method: manager.method)
            }
            return
        }
        next = PageLoader.request(manager, params, paging: paging.param.map { ($0, .int(position)) })
    }

    /// Whether a `has_more` value says there is a next page: `true`, `"true"` or a number other
    /// than 0.
    private static func isTrue(_ value: Value) -> Bool {
        switch value {
        case .bool(let flag): flag
        case .string(let text): text == "true"
        case .int(let number): number != 0
        case .double(let number): number != 0
        default: false
        }
    }

    private static func request(_ manager: ManagerPlan, _ params: [(name: String, value: Value)], paging: (String, Value)?) -> HTTPRequest {
        request(
            method: manager.method, path: manager.path ?? "/", body: manager.body, template: manager.bodyTemplate, of: manager, params,
            paging: paging)
    }

    /// A request of `manager`'s export job: the create request, or a poll (`{job_id}` in its path).
    static func request(_ job: JobPlan.Request, of manager: ManagerPlan, _ params: [(name: String, value: Value)]) -> HTTPRequest {
        request(method: job.method, path: job.path, body: nil, template: job.body, of: manager, params, paging: nil)
    }

    private static func request(
        method: String, path template: String, body encoding: BodyEncoding?, template bodyTemplate: BodyTemplate?, of manager: ManagerPlan,
        _ params: [(name: String, value: Value)], paging: (String, Value)?
    ) -> HTTPRequest {
        var path = template
        var rest: [(name: String, value: Value)] = []
        for (name, value) in params {
            if path.utf8.contains(UInt8(ascii: "{")), path.contains("{\(name)}") {
                path = path.replacing("{\(name)}", with: PercentEncoding.encode(value.plainText))
            } else {
                rest.append((name, value))
            }
        }
        var query: [QueryItem] = []
        var body: [UInt8]?
        var headers: [QueryItem] = []
        if let template = bodyTemplate {
            // The template places the values it names; the others go in the query.
            if let (name, value) = paging { rest.append((name, value)) }
            var values: [String: Value] = [:]
            for (name, value) in rest { values[name] = manager.typed(value, name) }
            let rendered = template.render(values)
            body = rendered.body
            headers.append(QueryItem(name: "Content-Type", value: rendered.contentType))
            rest.removeAll { template.names.contains($0.name) }
            query = rest.map { QueryItem(name: $0.name, value: $0.value.plainText) }
            return HTTPRequest(method: method, path: path, query: query, headers: headers, body: body)
        }
        switch encoding {
        case nil:
            query = rest.map { QueryItem(name: $0.name, value: $0.value.plainText) }
        case .json:
            var object = Object()
            for (name, value) in rest { object[name] = manager.typed(value, name) }
            body = Array(JSON.compactString(.object(object)).utf8)
            headers.append(QueryItem(name: "Content-Type", value: "application/json"))
        case .form:
            let form = rest.map { "\(PercentEncoding.encode($0.name))=\(PercentEncoding.encode($0.value.plainText))" }
            body = Array(form.joined(separator: "&").utf8)
            headers.append(QueryItem(name: "Content-Type", value: "application/x-www-form-urlencoded"))
        }
        if let (name, value) = paging { query.append(QueryItem(name: name, value: value.plainText)) }
        return HTTPRequest(method: method, path: path, query: query, headers: headers, body: body)
    }

    /// A request for an absolute or relative URL (next-url and Link paging, `reform init --openapi URL`).
    package static func request(fromURL url: String, method: String) -> HTTPRequest {
        var rest = Substring(url)
        var origin: String?
        if let scheme = rest.firstRange(of: "://") {
            let afterScheme = rest[scheme.upperBound...]
            let pathStart = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
            origin = String(rest[..<pathStart])
            rest = pathStart < afterScheme.endIndex ? afterScheme[pathStart...] : "/"
        } else if rest.hasPrefix("//") {
            // A network-path reference (RFC 3986 4.2): another authority, the current scheme
            // (the service client puts it in front; ``Redirects/absoluteOrigin(_:base:)``).
            let authority = rest.dropFirst(2)
            let pathStart = authority.firstIndex { $0 == "/" || $0 == "?" } ?? authority.endIndex
            origin = "//" + authority[..<pathStart]
            rest = pathStart < authority.endIndex ? authority[pathStart...] : "/"
            if rest.hasPrefix("?") { rest = Substring("/" + rest) }
        }
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [QueryItem] = []
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query.append(
                    QueryItem(
                        name: PercentEncoding.decode(String(kv[0])), value: kv.count > 1 ? PercentEncoding.decode(String(kv[1])) : ""))
            }
        }
        var request = HTTPRequest(method: method, path: String(parts.first ?? "/"), query: query)
        request.origin = origin
        return request
    }
}

extension ManagerPlan {
    /// A parameter's value as its declared kind, for a JSON body (a query's text is sent as given).
    fileprivate func typed(_ value: Value, _ name: String) -> Value {
        params.first { $0.name == name }?.typed(value) ?? value
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
