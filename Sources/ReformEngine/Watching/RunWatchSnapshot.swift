public import ReformSDK

/// What a ``RunWatch`` has seen of its run so far.
public struct RunWatchSnapshot: Sendable {
    /// How many times it changed (``RunWatch/changes``).
    public internal(set) var changes = 0
    /// The last pages landed, oldest first (at most ``RunWatch/Limits/pages``).
    public internal(set) var pages: [WatchedPage] = []
    /// Every page landed, including those no longer kept.
    public internal(set) var pagesSeen = 0
    /// Per manager, in the order they first landed a record: its count and first records.
    public internal(set) var managers: [WatchedManager] = []
    /// Per output of the run, in the pipeline's order: each reformer of its chain.
    public internal(set) var outputs: [WatchedOutput] = []
    /// The services' events (a 429's wait, an unreachable host, a token fetched), oldest first.
    public internal(set) var events: [String] = []
    /// The records whose path through every reformer and step is kept (``WatchedStage/traced``):
    /// each manager's first landed records (its ``WatchedManager/samples``), by manager and
    /// sequence.
    var traced: Set<TracedOrigin> = []

    /// A landed record's identity: its manager and its place among that manager's records.
    struct TracedOrigin: Hashable, Sendable {
        let manager: String
        let sequence: Int
    }

    mutating func managerIndex(_ name: String) -> Int {
        if let index = managers.firstIndex(where: { $0.name == name }) { return index }
        managers.append(WatchedManager(name: name))
        return managers.count - 1
    }

    /// All of it as one JSON object.
    public var json: Value { json(bodies: true) }

    /// All of it as one JSON object, each page's response body left out unless `bodies` (what
    /// `reform studio`'s page polls for, reading a page's body when it is opened).
    public func json(bodies: Bool) -> Value {
        var object = Object()
        object["changes"] = .int(changes)
        object["pages_seen"] = .int(pagesSeen)
        object["pages"] = .array(pages.map { $0.json(body: bodies) })
        object["managers"] = .array(managers.map(\.json))
        object["outputs"] = .array(outputs.map(\.json))
        object["events"] = .array(events.map { .string($0) })
        return .object(object)
    }
}

/// One page a manager landed: its request and response as `--record` writes them, and what
/// paging decided after it.
public struct WatchedPage: Sendable {
    /// Its 1-based position among the pages the run landed (of every manager).
    public internal(set) var number = 0
    /// The manager.
    public let manager: String
    /// The partition, for a manager that fans out (`owner=apple, repo=swift`).
    public let partition: String?
    /// The 1-based page number within its partition.
    public let page: Int
    /// Whether it was replayed from fixtures rather than fetched.
    public let replayed: Bool
    /// Whether it came from the response cache.
    public let cached: Bool
    /// The method and URL (the base URL and path when live, the path when replayed), secrets redacted.
    public let method: String
    /// The URL, query included, secrets redacted.
    public let url: String
    /// The request's headers as they went out (the service's, the credentials, the manager's),
    /// secrets redacted as `--record` redacts them: `Authorization: Bearer ***`.
    public let requestHeaders: [QueryItem]
    /// The request body, when there is one, secrets redacted.
    public let requestBody: String?
    /// The response status.
    public let status: Int
    /// The response headers, secrets redacted.
    public let responseHeaders: [QueryItem]
    /// The body, pretty-printed when it is JSON, secrets redacted, cut at ``RunWatch/Limits/bodyBytes``.
    public let body: String
    /// Whether ``body`` was cut.
    public let bodyCut: Bool
    /// The body's size as it came, in bytes.
    public let bodyBytes: Int
    /// Records found on the page.
    public let records: Int
    /// Whether the page's records are read from its result file as the run takes them (an
    /// export's): ``records`` then counts none of them, the manager's count has them, and
    /// ``body`` shows the start of the file.
    public let recordsStreamed: Bool
    /// Seconds the exchange took, when fetched.
    public let seconds: Double?
    /// The next page's URL, when paging goes on.
    public let next: String?
    /// Why paging stopped after this page, when it did.
    public let stopReason: String?
    /// The failure that ended the manager's pages here (a status it gave up on, a body it could
    /// not read): the page then shows what came back, as far as it is known, and no records.
    public let error: String?

    init(
        landing: Landing, manager: String, partition: String?, replayed: Bool, baseURL: String?, seconds: Double?, bodyLimit: Int,
        redact: (String) -> String
    ) {
        self.manager = manager
        self.partition = partition
        page = landing.page
        self.replayed = replayed
        cached = landing.cached
        method = landing.request.method
        url = redact(WatchedPage.url(of: landing.request, baseURL: baseURL))
        // As sent (credentials and the service's headers included, already redacted), else as built.
        let sent = landing.response.sentHeaders
        requestHeaders = (sent.isEmpty ? landing.request.headers : sent).map { QueryItem(name: $0.name, value: redact($0.value)) }
        requestBody = landing.request.body.flatMap { $0.isEmpty ? nil : redact(String(decoding: $0, as: UTF8.self)) }
        status = landing.response.status
        responseHeaders = landing.response.headers.map { QueryItem(name: $0.name, value: redact($0.value)) }
        let text: String
        if let file = landing.response.bodyFile {
            // The start of the file as it was stored (inflated), never read whole for this.
            // Read past the cut, so that a secret that crosses it is redacted whole first.
            let head = file.isGzip ? [] : file.read(bodyLimit + 4096, at: 0)
            text =
                "(result file, \(file.byteCount) bytes stored\(file.isGzip ? " gzip-compressed" : ""); its records are read as the run "
                + "takes them)\n" + String(decoding: head, as: UTF8.self)
        } else if let value = landing.response.body {
            var bytes: [UInt8] = []
            JSON.writePretty(value, into: &bytes)
            text = String(decoding: bytes, as: UTF8.self)
        } else {
            text = landing.response.bodyText ?? ""
        }
        (body, bodyCut) = WatchedPage.cut(redact(text), to: bodyLimit)
        bodyBytes = landing.response.byteCount
        records = landing.records.count
        recordsStreamed = landing.recordFile != nil
        self.seconds = seconds
        next = landing.isLast ? nil : landing.next.map { redact(WatchedPage.url(of: $0, baseURL: baseURL)) }
        stopReason = landing.stopReason?.description
        error = nil
    }

    /// The page `failure` ended `manager`'s pages at: the request (as the manager built it), and
    /// the status, headers and start of the body that came back, when any did.
    init(
        failure: ManagerError, page: Int, manager: String, partition: String?, replayed: Bool, baseURL: String?, bodyLimit: Int,
        redact: (String) -> String
    ) {
        self.manager = manager
        self.partition = partition
        self.page = page
        self.replayed = replayed
        cached = false
        let request = failure.request ?? ""
        let space = request.firstIndex(of: " ")
        method = space.map { String(request[..<$0]) } ?? ""
        let target = space.map { String(request[request.index(after: $0)...]) } ?? request
        url = redact(target.hasPrefix("/") ? (baseURL ?? "") + target : target)
        requestHeaders = []
        requestBody = nil
        status = failure.status ?? 0
        responseHeaders = failure.headers.map { QueryItem(name: $0.name, value: redact($0.value)) }
        let text = redact(failure.bodyExcerpt ?? "")
        (body, bodyCut) = WatchedPage.cut(text, to: bodyLimit)
        bodyBytes = text.utf8.count
        records = 0
        recordsStreamed = false
        seconds = nil
        next = nil
        stopReason = nil
        error = redact(failure.kind.rawValue + ": " + failure.message)
    }

    /// `text` cut to its first `limit` bytes, and whether it was.
    private static func cut(_ text: String, to limit: Int) -> (String, Bool) {
        text.utf8.count > limit ? (String(decoding: text.utf8.prefix(limit), as: UTF8.self), true) : (text, false)
    }

    private static func url(of request: HTTPRequest, baseURL: String?) -> String {
        let query = request.queryString
        let base = request.origin ?? baseURL ?? ""
        return base + request.path + (query.isEmpty ? "" : "?" + query)
    }

    /// The page as a JSON object.
    public var json: Value { json(body: true) }

    /// The page as a JSON object, its response body left out unless `body`.
    public func json(body withBody: Bool) -> Value {
        var object = Object()
        object["number"] = .int(number)
        object["manager"] = .string(manager)
        if let partition { object["partition"] = .string(partition) }
        object["page"] = .int(page)
        object["replayed"] = .bool(replayed)
        object["cached"] = .bool(cached)
        object["method"] = .string(method)
        object["url"] = .string(url)
        object["request_headers"] = .array(requestHeaders.map { .array([.string($0.name), .string($0.value)]) })
        if let requestBody { object["request_body"] = .string(requestBody) }
        object["status"] = .int(status)
        object["response_headers"] = .array(responseHeaders.map { .array([.string($0.name), .string($0.value)]) })
        if withBody { object["body"] = .string(body) }
        object["body_cut"] = .bool(bodyCut)
        object["body_bytes"] = .int(bodyBytes)
        object["records"] = .int(records)
        if recordsStreamed { object["records_streamed"] = .bool(true) }
        if let seconds { object["seconds"] = .double(seconds) }
        if let next { object["next"] = .string(next) }
        if let stopReason { object["stop_reason"] = .string(stopReason) }
        if let error { object["error"] = .string(error) }
        return .object(object)
    }
}

/// One record as watched, with where it came from.
public struct WatchedRecord: Sendable {
    /// The record.
    public let value: Value
    /// The manager that landed it.
    public let manager: String
    /// Its 1-based position among that manager's records in the run.
    public let sequence: Int
    /// The page it landed on (0: not from a paged source).
    public let page: Int
    /// The line of its input file (0: not from a file).
    public let line: Int
    /// Its partition, when known.
    public let partition: String?

    init(_ record: Record, partition: String?) {
        value = record.value
        manager = record.origin.manager.name
        sequence = record.origin.sequence
        page = record.origin.page
        line = record.origin.line
        self.partition = partition
    }

    /// The record and its origin as a JSON object.
    public var json: Value {
        var object = Object()
        object["value"] = value
        object["manager"] = .string(manager)
        object["sequence"] = .int(sequence)
        object["page"] = .int(page)
        if line > 0 { object["line"] = .int(line) }
        if let partition { object["partition"] = .string(partition) }
        return .object(object)
    }
}

/// What one manager landed.
public struct WatchedManager: Sendable {
    /// The manager.
    public let name: String
    /// Records landed.
    public internal(set) var records = 0
    /// The first of them.
    public internal(set) var samples: [WatchedRecord] = []

    /// The manager as a JSON object.
    public var json: Value {
        .object(["name": .string(name), "records": .int(records), "samples": .array(samples.map(\.json))])
    }
}

/// One output of the run: the reformers of its chain.
public struct WatchedOutput: Sendable {
    /// The output as messages name it (its path, table or standard output).
    public let name: String
    /// Its chain's reformers, in order.
    public internal(set) var stages: [WatchedStage]
    /// Its row shape's name and columns, when it renders rows.
    public internal(set) var rowShape: (name: String, columns: [String])?
    /// The first rows it wrote, in the order written (after a sorted shape's sort): each one's
    /// cells as the value (a list), with the origin of the record that filled it.
    public internal(set) var rows: [WatchedRecord] = []
    /// Rows it wrote.
    public internal(set) var rowsWritten = 0

    /// The output as a JSON object.
    public var json: Value {
        var object: Object = ["name": .string(name), "stages": .array(stages.map(\.json))]
        if let rowShape {
            object["rows"] = .object([
                "shape": .string(rowShape.name), "columns": .array(rowShape.columns.map { .string($0) }),
                "written": .int(rowsWritten), "first": .array(rows.map(\.json)),
            ])
        }
        return .object(object)
    }
}

/// One reformer of an output's chain, or one step of a `steps:` reformer: what it took, made and
/// rejected.
public struct WatchedStage: Sendable {
    /// The reformer's name, or the step's (`convert`, `filter`, …).
    public let name: String
    /// The line the step is declared on (`nil` for a reformer).
    public let line: Int?
    /// A `steps:` reformer's steps, in order (empty for any other reformer, and for a step).
    public internal(set) var steps: [WatchedStage] = []
    /// Records it took.
    public internal(set) var recordsIn = 0
    /// Records it made (released ones, after a sort, included).
    public internal(set) var recordsOut = 0
    /// Records it rejected.
    public internal(set) var rejected = 0
    /// The first records it made.
    public internal(set) var samples: [WatchedRecord] = []
    /// The first records it rejected, with why.
    public internal(set) var rejections: [WatchedRejection] = []
    /// Records it made from a traced record (each manager's first landed ones) that are not
    /// among ``samples``, so that each traced record's path through the chain is whole: with
    /// the samples, every record it made from one.
    public internal(set) var traced: [WatchedRecord] = []
    /// Traced records it rejected that are not among ``rejections``.
    public internal(set) var tracedRejections: [WatchedRejection] = []

    init(name: String, line: Int? = nil) {
        self.name = name
        self.line = line
    }

    /// The counts and records (and steps) as a JSON object.
    public var json: Value {
        var object = Object()
        object["name"] = .string(name)
        if let line { object["line"] = .int(line) }
        if !steps.isEmpty { object["steps"] = .array(steps.map(\.json)) }
        object["in"] = .int(recordsIn)
        object["out"] = .int(recordsOut)
        object["rejected"] = .int(rejected)
        object["samples"] = .array(samples.map(\.json))
        object["rejections"] = .array(rejections.map(\.json))
        if !traced.isEmpty { object["traced"] = .array(traced.map(\.json)) }
        if !tracedRejections.isEmpty { object["traced_rejections"] = .array(tracedRejections.map(\.json)) }
        return .object(object)
    }
}

/// A record a reformer rejected, and why.
public struct WatchedRejection: Sendable {
    /// The record as the reformer took it.
    public let record: WatchedRecord
    /// The error's code (`convert`, `missing-key`, …).
    public let code: String
    /// What was wrong.
    public let message: String

    /// The rejection as a JSON object.
    public var json: Value {
        .object(["record": record.json, "code": .string(code), "message": .string(message)])
    }
}
