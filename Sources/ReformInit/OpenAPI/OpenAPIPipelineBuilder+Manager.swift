import OpenAPIKit
import ReformSDK

/// One GET operation as a manager, its reformer and its run.
extension OpenAPIPipelineBuilder {
    /// What an operation became.
    struct MadeManager {
        var entry: PipelineDraft.Entry
        var reformer: PipelineDraft.Entry
        var run: PipelineDraft.Entry
        /// Where the records are (`nil`: the operation returns one object).
        var records: String?
        var paging: String
        var keyCount: Int
    }

    /// A manager, or why the operation cannot be one.
    enum Made {
        case success(MadeManager)
        case failure(String)
    }

    func manager(
        named name: String, service: String, path: String, operation: OpenAPI.Operation, pathParameters: OpenAPI.Parameter.Array
    ) -> Made {
        guard let response = successResponse(of: operation) else { return .failure("declares no successful (2XX) response") }
        var notes: [String] = []
        if let summary = operation.summary ?? operation.description { notes.append(summary) }
        if operation.deprecated { notes.append("deprecated by the API") }
        guard let (contentType, schema) = jsonSchema(of: response) else {
            let types = response.content.keys.map(\.rawValue)
            if !types.isEmpty { return .failure("responds with \(types.joined(separator: ", ")), not JSON") }
            return .failure("declares no response body")
        }
        _ = contentType
        let body = shapes.shape(of: schema)
        let found = shapes.records(in: body)
        let headers = response.headers.map { Array($0.keys) } ?? []
        let parameters = self.parameters(of: operation, pathParameters: pathParameters)
        let paging = PagingInference.infer(
            parameters: parameters.compactMap { $0.location == .query ? $0.paging : nil },
            fields: found?.path == nil ? [] : shapes.envelopeFields(of: body), headers: headers)

        var entries: [PipelineDraft.Entry] = [.init("service", .string(service)), .init("path", .string(path))]
        var params = Object()
        var runParams = Object()
        var runNotes: [String] = []
        for parameter in parameters {
            switch parameter.location {
            case .path, .query:
                guard parameter.name != paging.pagingParameter else { continue }
                var spec = parameter.spec
                if parameter.name == paging.sizeParameter, let size = paging.sizeDefault, spec["default"] == nil {
                    spec.appendNew(key: "default", value: .int(size))
                }
                params.appendNew(key: parameter.name, value: .object(spec))
                if parameter.required, spec["default"] == nil {
                    if let example = parameter.example {
                        runParams.appendNew(key: parameter.name, value: example)
                    } else {
                        runNotes.append(
                            "'\(parameter.name)' is required: give it under params here, or with --param \(parameter.name)=VALUE")
                    }
                }
            case .header, .cookie, .querystring:
                notes.append(
                    "the \(parameter.location.rawValue) parameter '\(parameter.name)' is not sent: add it under the service's headers if it is needed"
                )
            }
        }
        if !params.isEmpty { entries.append(.init("params", .object(params))) }
        if let recordsPath = found?.path { entries.append(.init("records", .string(recordsPath), comment: found?.comment)) }
        if let value = paging.paging {
            entries.append(.init("paging", value, comment: paging.comment))
        } else if let comment = paging.comment, found != nil {
            notes.append(comment)
        } else if found == nil {
            notes.append("returns one object, not a list: each request lands it as one record")
        }
        entries.append(.init("fixtures", .string("fixtures/\(name)"), comment: "written by --record, replayed by default"))

        let item = found?.item.map { shapes.shape(of: $0) } ?? (found == nil ? body : nil)
        let keys = RecordKeys.make(
            from: item, shapes: shapes, prefix: Naming.pascal(options.name ?? Naming.kebab(document.info.title)),
            schemaName: Naming.pascal(item?.referenceName ?? name))
        let reformer = PipelineDraft.Entry(
            name,
            block: [
                .init("keys", .object(keys.constants)),
                .init("from", block: [.init(name, block: keys.rules.map { PipelineDraft.Entry($0.key, $0.rule) })]),
            ], notes: keys.notes)

        var run: [PipelineDraft.Entry] = [.init("managers", [.string(name)])]
        if !runParams.isEmpty { run.append(.init("params", .object(runParams))) }
        run += [.init("reform", [.string(name)]), .init("output", ["format": "ndjson", "path": .string("out/\(name).ndjson")])]
        return .success(
            MadeManager(
                entry: .init(name, block: entries, notes: notes), reformer: reformer, run: .init(name, block: run, notes: runNotes),
                records: found.map { $0.path ?? "." }, paging: paging.summary, keyCount: keys.constants.count))
    }

    /// The response of the first 2XX status (200 before others), references followed.
    private func successResponse(of operation: OpenAPI.Operation) -> OpenAPI.Response? {
        let successes = operation.responses.filter { $0.key.isSuccess }
        let chosen = successes.first { $0.key.rawValue == "200" } ?? successes.first
        return chosen.flatMap { document.components[$0.value] }
    }

    /// The schema of a JSON body (`application/json`, or any `…+json`/`…json…` type).
    private func jsonSchema(of response: OpenAPI.Response) -> (String, JSONSchema)? {
        let json = response.content.first { $0.key.rawValue.lowercased().contains("json") }
        guard let json, let content = document.components[json.value], let schema = content.schema ?? content.itemSchema else { return nil }
        return (json.key.rawValue, schema)
    }
}
