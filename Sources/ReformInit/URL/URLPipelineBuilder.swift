import Foundation
import ReformEngine
package import ReformSDK
import ReformSystem
import ReformTooling
import ReformYAML

/// What `reform init --url` is asked.
package struct URLInitOptions: Sendable {
    /// The URL of the first page.
    package var url: String
    /// Where the records are in the body, when given (else inferred).
    package var records: String?
    /// Headers sent with every request, `Name: value`; a value may hold `${VARIABLES}`.
    package var headers: [String] = []
    /// A bearer token, normally `${VARIABLE}`.
    package var bearer: String?
    /// The pipeline's name (else from the URL's path).
    package var name: String?
    /// The most pages recorded.
    package var pages = 2
    /// The folder written to.
    package var folder = "."
    /// The environment `${VARIABLES}` resolve from.
    package var environment: [String: String] = [:]
    /// A GraphQL query POSTed to the URL instead of a GET (its text).
    package var graphql: String?
    /// The query's variables, in order, each written as a param of the manager.
    package var variables: [(name: String, value: Value)] = []

    /// Options for the first page at `url`.
    package init(url: String) { self.url = url }
}

/// What `reform init --url` wrote.
package struct URLInitResult: Sendable {
    /// The pipeline's path, its test file's, and the fixtures folder.
    package var pipeline = ""
    package var testFile = ""
    package var fixtures = ""
    /// Pages recorded, records landed, how paging was inferred and how it stopped.
    package var pages = 0
    package var records = 0
    package var recordsPath = "."
    package var paging = "none"
    package var stop = ""
    /// How many keys the reformer declares.
    package var keyCount = 0
    /// What the user should look at.
    package var notes: [String] = []
}

/// `reform init --url URL`: one live GET, the records and the paging read from what came back, a
/// pipeline with a manager, a reformer and a run written around them, the pages recorded as its
/// fixtures (at most `pages`), and a test whose golden output is the run's, checked to pass.
package struct URLPipelineBuilder {
    let options: URLInitOptions

    /// A builder for `options`.
    package init(_ options: URLInitOptions) { self.options = options }

    /// The pipeline's name for `options` (from the URL's last path segment that is not a number).
    package static func name(for options: URLInitOptions) -> String {
        if let name = options.name { return name }
        let request = PageLoader.request(fromURL: options.url, method: "GET")
        let segments = request.path.split(separator: "/").map(String.init).filter { Int($0) == nil && !$0.isEmpty }
        let host = (request.origin ?? "").split(separator: "/").last.map(String.init) ?? "api"
        return Naming.kebab(segments.last ?? host.split(separator: ".").dropLast().last.map(String.init) ?? host)
    }

    /// Fetches, infers, records and writes; the files exist only when it succeeds.
    package func build() async throws(InitError) -> URLInitResult {
        if let query = options.graphql { return try await buildGraphQL(query: query) }
        let first = PageLoader.request(fromURL: options.url, method: "GET")
        guard let origin = first.origin, origin.hasPrefix("http://") || origin.hasPrefix("https://") else {
            throw InitError("'\(options.url)' is not an http(s) URL")
        }
        let name = URLPipelineBuilder.name(for: options)
        let service = try serviceEntry(origin: origin)
        var params = Object()
        for item in first.query { params[item.name] = Int(item.value).map(Value.int) ?? .string(item.value) }

        // The first page, through the engine as the pipeline will send it.
        let landing = try await probe(service: service, path: first.path, params: params, name: name)
        let format = URLPipelineBuilder.format(ofContentType: landing.response.header("content-type") ?? "")
        var entries = managerEntries(path: first.path, params: params)
        var notes: [String] = []
        var found: (path: String?, comment: String?) = (nil, nil)
        var pagingResult = PagingInference.Result(summary: "none")
        if format == .json {
            guard let body = landing.response.body else {
                throw InitError("the response is not JSON, CSV, NDJSON or XML; reform init reads those")
            }
            found = try records(in: body)
            pagingResult = URLPaging.infer(query: first.query, body: body, headers: landing.response.headers)
        } else {
            entries.append(.init("format", .string(format.rawValue)))
            pagingResult = URLPaging.infer(query: first.query, body: .null, headers: landing.response.headers)
            if format == .xml {
                // The shallowest element that repeats, named from the root (`rss.channel.item`).
                let inferred = XMLRecords.repeatedElementPath(landing.response.bodyText ?? "")?.map(Naming.pathSegment)
                found = (options.records ?? inferred?.joined(separator: "."), nil)
            }
        }
        if let parameter = pagingResult.pagingParameter { params[parameter] = nil }
        entries = managerEntries(path: first.path, params: params)
        if format != .json { entries.append(.init("format", .string(format.rawValue))) }
        if let path = found.path {
            entries.append(.init("records", .string(path), comment: found.comment))
        } else if format == .json, landing.response.body?.objectValue != nil {
            notes.append("the body is one object, not a list: each request lands it as one record (--records PATH chooses a list in it)")
        }
        var paging = pagingResult.paging
        if let value = paging {
            entries.append(.init("paging", value, comment: pagingResult.comment))
        } else if let comment = pagingResult.comment {
            notes.append(
                comment.replacing("the operation declares", with: "the URL and the response have")
                    + "; if the API pages, put its page, offset or cursor parameter in the URL")
        }
        entries.append(.init("fixtures", .string("fixtures/\(name)"), comment: "written by reform init (reform run --record again)"))

        // Every page up to the limit, recorded as the engine replays them.
        let recorded = try await record(
            first: landing, manager: draft(service: service, manager: entries), name: name, format: format, recordsPath: found.path)
        if !recorded.finished, case .object(var object)? = paging {
            object["max_pages"] = .int(recorded.pages)
            paging = .object(object)
            if let index = entries.firstIndex(where: { $0.key == "paging" }) {
                let recordedNote = "reform init recorded \(recorded.pages) pages: remove max_pages to read them all"
                entries[index] = .init(
                    "paging", .object(object), comment: pagingResult.comment.map { "\($0); \(recordedNote)" } ?? recordedNote)
            }
            notes.append("there are more pages: max_pages keeps the run to the \(recorded.pages) recorded")
        }
        var result = URLInitResult()
        result.recordsPath = found.path ?? "."
        result.paging = pagingResult.summary
        try write(name: name, service: service, manager: entries, notes: notes, recorded: recorded, into: &result)
        return result
    }

    /// Writes the pipeline of `manager` (the final draft) with a reformer over the fields the
    /// recorded records had and a run, its test and the recorded pages, into `result`.
    func write(
        name: String, service: PipelineDraft.Entry, manager entries: [PipelineDraft.Entry], notes: [String], recorded: Recorded,
        extraFiles: [String: String] = [:], into result: inout URLInitResult
    ) throws(InitError) {
        let notes = notes + recorded.notes
        result.pages = recorded.pages
        result.records = recorded.records.count
        let shape = ResponseShape()
        let keys = RecordKeys.make(
            from: shape.shape(of: recorded.records), shapes: shape.shapes, prefix: "", schemaName: Naming.pascal(name))
        var pipeline = draft(service: service, manager: entries, notes: notes)
        pipeline.entries += [
            .init(
                "reformers",
                block: [
                    .init(
                        name,
                        block: [
                            .init("keys", .object(keys.constants)),
                            .init("from", block: [.init(name, block: keys.rules.map { PipelineDraft.Entry($0.key, $0.rule) })]),
                        ], notes: keys.notes)
                ]),
            .init("runs", block: [.init("default", block: [.init("reform", [.string(name)]), .init("output", ["format": "ndjson"])])]),
        ]
        result.keyCount = keys.constants.count
        result.stop = recorded.stop
        result.notes = notes
        try write(pipeline, name: name, recorded: recorded, extraFiles: extraFiles, into: &result)
    }

    /// The `services:` entry: the origin, the headers and the bearer token as written (their
    /// `${VARIABLES}` resolve when a request is sent; a secret is never written as a value).
    func serviceEntry(origin: String) throws(InitError) -> PipelineDraft.Entry {
        var entries: [PipelineDraft.Entry] = [.init("base_url", .string(origin))]
        var headers = Object()
        for header in options.headers {
            guard let colon = header.firstIndex(of: ":") else {
                throw InitError("--header '\(header)' is not 'Name: value'")
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let lower = name.lowercased()
            let secret =
                ["authorization", "cookie", "proxy-authorization"].contains(lower) || lower.contains("key")
                || lower.contains("token") || lower.contains("secret")
            if secret, !value.contains("${") {
                throw InitError(
                    "--header '\(name)' holds a secret written out: reform init never writes one into a file; "
                        + "put it in a variable and pass --header '\(name): ${VARIABLE}'")
            }
            headers[name] = .string(value)
        }
        if !headers.isEmpty { entries.append(.init("headers", .object(headers))) }
        if let bearer = options.bearer {
            guard bearer.contains("${") else {
                throw InitError("--bearer holds a token written out: reform init never writes one into a file; pass --bearer '${VARIABLE}'")
            }
            entries.append(.init("auth", ["bearer": .string(bearer)]))
        }
        return .init("api", block: entries)
    }

    /// The first page, sent by the engine as the pipeline will send it. A body that is not JSON
    /// is asked for again with the format its content type names (CSV, TSV, NDJSON).
    private func probe(service: PipelineDraft.Entry, path: String, params: Object, name: String) async throws(InitError) -> Landing {
        var entries = managerEntries(path: path, params: params)
        for attempt in 0..<2 {
            let scratch = try ScratchPipeline(yaml: draft(service: service, manager: entries).yaml(), environment: options.environment)
            defer { scratch.remove() }
            do { return try await scratch.manager(name: name, environment: options.environment).load() } catch let error as ManagerError {
                let type = error.headers.first { $0.name.lowercased() == "content-type" }?.value ?? ""
                let format = URLPipelineBuilder.format(ofContentType: type)
                guard attempt == 0, error.kind == .invalidBody, format != .json else {
                    throw InitError("the first page did not come: \(error)")
                }
                entries.append(.init("format", .string(format.rawValue)))
            } catch {
                throw InitError("the first page did not come: \(error)")
            }
        }
        throw InitError("the first page did not come")
    }

    /// How a body of `contentType` holds records: NDJSON, CSV, TSV, else JSON.
    static func format(ofContentType contentType: String) -> ResponseFormat {
        let type = contentType.lowercased()
        if type.contains("ndjson") || type.contains("jsonl") || type.contains("json-seq") { return .ndjson }
        if type.contains("csv") { return .csv }
        if type.contains("tab-separated") { return .tsv }
        if type.contains("xml") { return .xml }
        return .json
    }

    private func managerEntries(path: String, params: Object) -> [PipelineDraft.Entry] {
        var entries: [PipelineDraft.Entry] = [.init("service", "api"), .init("path", .string(path))]
        if !params.isEmpty { entries.append(.init("params", .object(params))) }
        return entries
    }

    func draft(service: PipelineDraft.Entry, manager: [PipelineDraft.Entry], notes: [String] = []) -> PipelineDraft {
        var draft = PipelineDraft()
        let name = URLPipelineBuilder.name(for: options)
        draft.header = [
            "Written by reform init --url \(options.url)",
            "reform run \(name).yaml replays the recorded pages; --live asks the API; reform test \(name).yaml checks the output.",
        ]
        draft.entries = [
            .init("reform", 1), .init("name", .string(name)), .init("services", block: [service]),
            .init("managers", block: [.init(name, block: manager, notes: notes)]),
        ]
        return draft
    }

    /// Where the records are: `--records`, or the rules `--openapi` applies (a bare array, or the
    /// array of an envelope), over the body's inferred shape.
    private func records(in body: Value) throws(InitError) -> (path: String?, comment: String?) {
        if let given = options.records {
            guard let path = try? ValuePath(parsing: given), let found = body[path: path] else {
                throw InitError("--records '\(given)': the body has no such path")
            }
            guard found.arrayValue != nil else { throw InitError("--records '\(given)' is not a list in the body") }
            return (given == "." ? nil : given, nil)
        }
        let shape = ResponseShape()
        guard let found = shape.shapes.records(in: shape.shape(of: [body])) else {
            return (nil, nil)  // one object: each request lands it as one record
        }
        return (found.path, found.comment)
    }
}
