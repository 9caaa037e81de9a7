import ReformSDK
import ReformYAML

/// A manager's request body: `body: json | form` (its parameters, flat), `body: { json: … }` or
/// `body: { form: … }` (a template), and the `graphql:` shorthand.
extension PipelineDecoder {
    /// What `body:` and `graphql:` decode to.
    struct RequestBody {
        var encoding: BodyEncoding?
        var template: BodyTemplate?
        var graphQL = false
        var rateLimit: BodyRateLimit?
        var method: String?
        var path: String?
        var paging: PagingPlan?
    }

    /// The names a body template may place: the manager's params, its paging parameter and its
    /// incremental cursor.
    static func templateNames(params: [ParamPlan], paging: PagingPlan, incremental: IncrementalPlan?) -> Set<String> {
        var names = Set(params.map(\.name))
        if let param = paging.param { names.insert(param) }
        if let param = incremental?.param { names.insert(param) }
        return names
    }

    func decodeBody(_ m: Mapping, _ what: String, known: Set<String>, paging: PagingPlan?) -> RequestBody {
        var result = RequestBody()
        if let node = m["graphql"] {
            if let body = m["body"] {
                context.error(
                    "\(what) has both 'graphql' and 'body'; 'graphql' writes the body (its query and variables)", at: body.location)
            }
            return decodeGraphQL(node, what, known: known, paging: paging) ?? result
        }
        guard let node = m["body"] else { return result }
        guard case .mapping = node.content else {
            result.encoding = context.choice(node, "body encoding", as: BodyEncoding.self)
            return result
        }
        guard let body = context.mapping(node, "'body' of \(what)", allowed: BodyEncoding.allCases.map(\.rawValue)) else {
            return result
        }
        guard body.entries.count == 1, let entry = body.entries.first, let encoding = BodyEncoding(rawValue: entry.key) else {
            context.error("'body' of \(what) is one of: 'json: {…}' (a JSON template) or 'form: {…}' (form fields)", at: node.location)
            return result
        }
        guard let value = context.value(entry.value, "'body.\(entry.key)' of \(what)") else { return result }
        if encoding == .form {
            guard let fields = value.objectValue,
                fields.members.allSatisfy({ if case .array = $0.value { false } else if case .object = $0.value { false } else { true } })
            else {
                context.error(
                    "'body.form' of \(what) is a mapping of field names to values (text, numbers, booleans, {param}), not nested data",
                    at: entry.value.location)
                return result
            }
        }
        warnUnknownPlaceholders(in: value, what: "'body.\(entry.key)' of \(what)", known: known, at: entry.value.location)
        result.template = BodyTemplate(value, encoding: encoding, known: known)
        return result
    }

    /// `graphql: { query | query_file, variables, page_info, cursor }`: a POST of
    /// `{"query": …, "variables": …}`, errors in the body a failure, and cursor paging from the
    /// connection's `pageInfo` when `page_info` names it.
    private func decodeGraphQL(_ node: YAMLNode, _ what: String, known: Set<String>, paging: PagingPlan?) -> RequestBody? {
        let section = "'graphql' of \(what)"
        guard let g = context.mapping(node, section, allowed: PipelineSchema.graphQL.keyNames) else { return nil }
        var query: String?
        switch (g["query"], g["query_file"]) {
        case (let text?, nil):
            query = context.string(text, "'query' in \(section)")
        case (nil, let file?):
            if let relative = context.string(file, "'query_file' in \(section)"),
                let path = containedPath(relative, "'query_file' in \(section)", at: file.location)
            {
                do { query = String(decoding: try FilePaths.readAll(path, limit: 1 << 22), as: UTF8.self) } catch {
                    context.error("cannot read 'query_file' '\(relative)' of \(what): \(error)", at: file.location)
                }
            }
        case (.some, .some):
            context.error("\(section) has both 'query' and 'query_file'; give one", at: node.location)
        case (nil, nil):
            context.error("\(section) needs 'query' (the GraphQL document) or 'query_file' (a file holding it)", at: node.location)
        }
        guard let query else { return nil }
        var variables = Object()
        if let v = g["variables"] {
            guard let value = context.value(v, "'variables' in \(section)"), let object = value.objectValue else {
                context.error("'variables' in \(section) is a mapping of variable names to values", at: v.location)
                return nil
            }
            variables = object
        }
        var result = RequestBody(method: "POST", path: "/graphql")
        result.graphQL = true
        if let node = g["rate_limit"] { result.rateLimit = decodeBodyRateLimit(node, "'rate_limit' in \(section)") }
        var names = known
        if let pageInfoNode = g["page_info"], let pageInfo = context.path(pageInfoNode, "'page_info' in \(section)") {
            if let paging, paging.policy != .none {
                context.error(
                    "\(what) has 'paging' and 'graphql.page_info'; page_info makes the cursor paging (endCursor into the cursor variable, "
                        + "hasNextPage as the stop), so remove 'paging' or 'page_info'",
                    at: pageInfoNode.location)
            }
            let cursor = g["cursor"].flatMap { context.string($0, "'cursor' in \(section)") } ?? "after"
            if variables[cursor] != nil, let at = g["variables"] {
                context.error(
                    "'variables' in \(section) sets '\(cursor)', the cursor variable page_info fills; remove it (the first page sends null)",
                    at: at.location)
            }
            variables[cursor] = .string("{\(cursor)}")
            names.insert(cursor)
            result.paging = PagingPlan(
                policy: .cursor, param: cursor, start: 1, sizeParam: nil, tokenPath: ValuePath(pageInfo.components + [.key("endCursor")]),
                tokenHeader: nil,
                stop: [.noNext],
                maxPages: g["max_pages"].flatMap { context.int($0, "'max_pages' in \(section)", in: 1...Int.max) } ?? paging?.maxPages,
                maxRecords: paging?.maxRecords,
                hasMore: ValuePath(pageInfo.components + [.key("hasNextPage")]))
        } else if let at = g["cursor"] ?? g["max_pages"] {
            context.error(
                "'cursor' and 'max_pages' in \(section) are of the paging page_info makes (the variable its endCursor goes to, the most "
                    + "pages); add 'page_info'", at: at.location)
        }
        warnUnknownPlaceholders(
            in: .object(variables), what: "'variables' in \(section)", known: names, at: g["variables"]?.location ?? node.location)
        var body = Object()
        body["query"] = .string(query)
        body["variables"] = .object(variables)
        result.template = BodyTemplate(.object(body), encoding: .json, known: names, literalKeys: ["query"])
        return result
    }

    /// `rate_limit: { remaining, reset_at, limit }`: paths into each answer's body.
    private func decodeBodyRateLimit(_ node: YAMLNode, _ what: String) -> BodyRateLimit? {
        guard let r = context.mapping(node, what, allowed: PipelineSchema.graphQLRateLimit.keyNames) else { return nil }
        guard let remainingNode = r["remaining"] else {
            context.error("\(what) needs 'remaining': where an answer says what is left, like data.rateLimit.remaining", at: node.location)
            return nil
        }
        guard let remaining = context.path(remainingNode, "'remaining' in \(what)") else { return nil }
        let resetAt = r["reset_at"].flatMap { context.path($0, "'reset_at' in \(what)") }
        let limit = r["limit"].flatMap { context.path($0, "'limit' in \(what)") }
        return BodyRateLimit(remaining: remaining, resetAt: resetAt, limit: limit)
    }

    /// A `{name}` that is no value the manager knows is sent as written: say so, in case it is a
    /// typo for one.
    private func warnUnknownPlaceholders(in value: Value, what: String, known: Set<String>, at location: SourceLocation) {
        for name in BodyTemplate.unknownNames(in: value, known: known) {
            context.warning(
                "\(what) has {\(name)}, which names none of the manager's params, so it is sent as written"
                    + Suggestions.hint(for: name, in: Array(known)),
                at: location)
        }
    }
}
