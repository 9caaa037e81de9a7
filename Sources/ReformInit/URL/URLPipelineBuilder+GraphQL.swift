import Foundation
import ReformEngine
import ReformSDK

/// `reform init --url URL --graphql QUERY`: the query POSTed once, its connection found in what came
/// back (the object with a `pageInfo`, its `nodes` or `edges` the records), and a `graphql:` manager
/// written around it that pages through `pageInfo` with the query's cursor variable.
extension URLPipelineBuilder {
    func buildGraphQL(query: String) async throws(InitError) -> URLInitResult {
        let first = PageLoader.request(fromURL: options.url, method: "POST")
        guard let origin = first.origin, origin.hasPrefix("http://") || origin.hasPrefix("https://") else {
            throw InitError("'\(options.url)' is not an http(s) URL")
        }
        guard first.query.isEmpty else {
            throw InitError(
                "--graphql: the URL is the endpoint (\(origin)\(first.path)); give the query's values with --variable, not in the URL")
        }
        let name = URLPipelineBuilder.name(for: options)
        let service = try serviceEntry(origin: origin)
        let declared = GraphQLVariables.declared(in: query)
        for (variable, _) in options.variables where !declared.contains(where: { $0.name == variable }) {
            throw InitError(
                "--variable \(variable): the query declares no $\(variable) (it declares \(declared.map { "$" + $0.name }.joined(separator: ", ")))"
            )
        }
        let cursor = GraphQLVariables.cursor(in: declared, given: options.variables.map(\.name))
        let queryFile = "queries/\(name).graphql"
        let files = [queryFile: query.hasSuffix("\n") ? query : query + "\n"]
        var params = Object()
        var variables = Object()
        for (variable, value) in options.variables {
            params[variable] = value
            variables[variable] = .string("{\(variable)}")
        }
        func entries(pageInfo: String?, records: String?, comment: String?, maxPages: Int? = nil) -> [PipelineDraft.Entry] {
            var graphql: [PipelineDraft.Entry] = [.init("query_file", .string(queryFile))]
            if !variables.isEmpty { graphql.append(.init("variables", .object(variables))) }
            if let pageInfo, let cursor {
                graphql.append(.init("page_info", .string(pageInfo)))
                if cursor != "after" { graphql.append(.init("cursor", .string(cursor))) }
                if let maxPages {
                    graphql.append(
                        .init(
                            "max_pages", .int(maxPages),
                            comment: "reform init recorded \(maxPages) pages: remove max_pages to read them all"))
                }
            }
            var manager: [PipelineDraft.Entry] = [.init("service", "api"), .init("path", .string(first.path))]
            if !params.isEmpty { manager.append(.init("params", .object(params))) }
            manager.append(.init("graphql", block: graphql))
            if let records { manager.append(.init("records", .string(records), comment: comment)) }
            return manager
        }

        // Sent once without paging, to see where the records are.
        let probe = try await landing(of: entries(pageInfo: nil, records: nil, comment: nil), service: service, name: name, files: files)
        guard let body = probe.response.body else { throw InitError("the answer to the query is not JSON") }
        var notes: [String] = []
        if let given = options.records {
            guard let path = try? ValuePath(parsing: given), body[path: path]?.arrayValue != nil else {
                throw InitError("--records '\(given)' is not a list in the answer to the query")
            }
        }
        let connection = options.records == nil ? GraphQLVariables.connection(in: body) : nil
        var recordsPath = options.records ?? connection?.records
        var comment: String?
        if recordsPath == nil, let list = GraphQLVariables.largestList(in: body) {
            recordsPath = list
            comment = "the largest list in the answer; no connection (pageInfo) was found to page through"
        }
        guard let recordsPath else {
            throw InitError("the answer has no list of objects under 'data'; give where the records are with --records PATH")
        }
        if let connection, cursor == nil {
            notes.append(
                "the query declares no cursor variable ($after: String) for \(connection.pageInfo): declare one, pass it to the "
                    + "connection's after: argument, and add page_info: \(connection.pageInfo) under graphql: to page")
        }
        let pageInfo = cursor == nil ? nil : connection?.pageInfo
        var manager = entries(pageInfo: pageInfo, records: recordsPath, comment: comment)
        manager.append(.init("fixtures", .string("fixtures/\(name)"), comment: "written by reform init (reform run --record again)"))

        // The first page again, as the final manager asks for it (its cursor variable set).
        let firstPage = try await landing(of: manager, service: service, name: name, files: files)
        let recorded = try await record(
            first: firstPage, manager: draft(service: service, manager: manager), name: name, format: .json, recordsPath: recordsPath,
            files: files)
        if pageInfo != nil, !recorded.finished {
            // The recorded pages are all the offline run can replay.
            manager = entries(pageInfo: pageInfo, records: recordsPath, comment: comment, maxPages: recorded.pages)
            manager.append(.init("fixtures", .string("fixtures/\(name)"), comment: "written by reform init (reform run --record again)"))
            notes.append("there are more pages: graphql.max_pages keeps the run to the \(recorded.pages) recorded")
        }
        var result = URLInitResult()
        result.recordsPath = recordsPath
        result.paging = pageInfo == nil ? "none" : "graphql page_info"
        try write(name: name, service: service, manager: manager, notes: notes, recorded: recorded, extraFiles: files, into: &result)
        return result
    }

    /// The first page of `manager`, sent live by the engine.
    private func landing(of manager: [PipelineDraft.Entry], service: PipelineDraft.Entry, name: String, files: [String: String])
        async throws(InitError) -> Landing
    {
        let scratch = try ScratchPipeline(
            yaml: draft(service: service, manager: manager).yaml(), files: files, environment: options.environment)
        defer { scratch.remove() }
        do { return try await scratch.manager(name: name, environment: options.environment).load() } catch {
            throw InitError("the first page did not come: \(error)")
        }
    }
}

/// What a GraphQL query and its answer say about paging: the variables the operation declares, which
/// of them takes the cursor, and the connection in the answer.
enum GraphQLVariables {
    /// The variables the query's first operation declares, `($owner: String!, $after: String)`,
    /// each with its type as written.
    static func declared(in query: String) -> [(name: String, type: String)] {
        guard let open = query.firstIndex(of: "("), let brace = query.firstIndex(of: "{"), open < brace,
            let close = query[open...].firstIndex(of: ")")
        else { return [] }
        return query[query.index(after: open)..<close].split(separator: ",").compactMap { part in
            let pieces = part.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard pieces.count == 2, pieces[0].hasPrefix("$") else { return nil }
            let type = pieces[1].split(separator: "=").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? pieces[1]
            return (String(pieces[0].dropFirst()), type)
        }
    }

    /// The variable the cursor goes into: `after`, else `cursor`, else a nullable String not given
    /// a value whose name says cursor or after; nil when the query has none.
    static func cursor(in declared: [(name: String, type: String)], given: [String]) -> String? {
        let free = declared.filter { !given.contains($0.name) && !$0.type.hasSuffix("!") }
        for preferred in ["after", "cursor"] where free.contains(where: { $0.name == preferred }) { return preferred }
        return free.first { variable in
            let lower = variable.name.lowercased()
            return variable.type == "String" && (lower.contains("cursor") || lower.contains("after"))
        }?.name
    }

    /// The first connection under `data`, depth first: the path of an object whose `pageInfo` has
    /// `hasNextPage` or `endCursor`, and its records (`nodes`, else `edges`).
    static func connection(in body: Value) -> (pageInfo: String, records: String)? {
        func search(_ value: Value, _ path: [String]) -> (pageInfo: String, records: String)? {
            guard case .object(let object) = value else { return nil }
            if case .object(let info)? = object["pageInfo"], info["hasNextPage"] != nil || info["endCursor"] != nil {
                let list = object["nodes"]?.arrayValue != nil ? "nodes" : object["edges"]?.arrayValue != nil ? "edges" : nil
                if let list { return ((path + ["pageInfo"]).joined(separator: "."), (path + [list]).joined(separator: ".")) }
            }
            for key in object.keys {
                if let child = object[key], let found = search(child, path + [Naming.pathSegment(key)]) { return found }
            }
            return nil
        }
        guard let data = body.objectValue?["data"] else { return nil }
        return search(data, ["data"])
    }

    /// The path of the longest list of objects under `data`.
    static func largestList(in body: Value) -> String? {
        var best: (path: String, count: Int)?
        func search(_ value: Value, _ path: [String]) {
            switch value {
            case .array(let items) where items.contains(where: { $0.objectValue != nil }):
                if items.count > (best?.count ?? -1) { best = (path.joined(separator: "."), items.count) }
            case .object(let object):
                for key in object.keys { if let child = object[key] { search(child, path + [Naming.pathSegment(key)]) } }
            default: break
            }
        }
        if let data = body.objectValue?["data"] { search(data, ["data"]) }
        return best?.path
    }
}
