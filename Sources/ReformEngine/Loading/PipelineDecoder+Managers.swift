import ReformSDK
import ReformYAML

extension PipelineDecoder {
    static let managerKeys = PipelineSchema.manager.keyNames
    static let paramKeys = PipelineSchema.param.keyNames
    static let expectKeys = PipelineSchema.expect.keyNames
    static let pagingKeys = PipelineSchema.paging.keyNames
    static let methods = PipelineSchema.methods

    func decodeManagers(_ node: YAMLNode, services: [ServicePlan]) -> [ManagerPlan] {
        var plans: [ManagerPlan] = []
        let entries = namedEntries(node, "managers")
        let names = entries.map(\.key)
        for entry in entries {
            let what = "manager '\(entry.key)'"
            if entry.key.contains("/") || entry.key.hasPrefix(".") || entry.key.isEmpty {
                context.error(
                    "manager name '\(entry.key)' cannot be used as a file name (its response cache is a folder named after it); "
                        + "use letters, digits, '-', '_' and '.', not '/' or a leading '.'",
                    at: entry.keyLocation)
            }
            guard let m = context.mapping(entry.value, what, allowed: PipelineDecoder.managerKeys) else { continue }
            let service = m["service"].flatMap { context.string($0, "'service' of \(what)") }
            if let service, let at = m["service"], !services.contains(where: { $0.name == service }) {
                unknownReference("service", service, known: services.map(\.name), at: at.location)
            }
            let path = m["path"].flatMap { context.string($0, "'path' of \(what)") }
            if let path, !path.hasPrefix("/"), let at = m["path"] {
                context.error("'path' of \(what) must start with '/', as in '/\(path)'", at: at.location)
            }
            var method = m["graphql"] == nil ? "GET" : "POST"
            if let node = m["method"], let text = context.string(node, "'method' of \(what)") {
                method = text.uppercased()
                if !PipelineDecoder.methods.contains(method) {
                    context.error(
                        "unknown HTTP method '\(text)' of \(what); expected one of: \(PipelineDecoder.methods.joined(separator: ", "))",
                        at: node.location)
                }
            }
            let params = m["params"].map { decodeParams($0, what) } ?? []
            let records = m["records"].flatMap { context.path($0, "'records' of \(what)") }
            let expect = m["expect"].flatMap { decodeExpect($0, what) } ?? .standard
            var paging = m["paging"].flatMap { decodePaging($0, what, params: params) } ?? .single
            let incremental = m["incremental"].flatMap { decodeIncremental($0, what) }
            let known = PipelineDecoder.templateNames(params: params, paging: paging, incremental: incremental)
            let requestBody = decodeBody(m, what, known: known, paging: m["paging"] == nil ? nil : paging)
            if let graphQLPaging = requestBody.paging { paging = graphQLPaging }
            if requestBody.graphQL, method != "POST", let node = m["method"] {
                context.error("a 'graphql' manager sends a POST; remove 'method' from \(what)", at: node.location)
            }
            let takeoff = m["takeoff"].flatMap { context.choice($0, "takeoff policy", as: TakeoffPolicy.self) } ?? .parallel
            var fixtures: String?
            if let node = m["fixtures"], let relative = context.string(node, "'fixtures' of \(what)") {
                let resolved = containedPath(relative, "'fixtures' of \(what)", at: node.location)
                fixtures = resolved
                if let resolved { checkFixtureFiles(in: resolved, relative, what, at: node.location) }
                if let resolved, !FilePaths.isDirectory(resolved) {
                    context.warning(
                        "fixtures folder '\(relative)' of \(what) does not exist yet (looked for \(resolved)); "
                            + "record it with 'reform run --record', or fix the path",
                        at: node.location)
                }
            }
            if service == nil && fixtures == nil && m["path"] != nil {
                context.warning("\(what) has a path but no service; it can only read --input files", at: entry.keyLocation)
            }
            if let path, service != nil {
                for name in PathTemplate.names(in: path) where !params.contains(where: { $0.name == name }) {
                    context.error(
                        "'path' of \(what) uses {\(name)}, which is not one of its params; declare it under 'params'",
                        at: m["path"]?.location ?? entry.keyLocation)
                }
            }
            plans.append(
                ManagerPlan(
                    ref: ManagerRef(index: plans.count, name: entry.key), service: service,
                    path: path ?? (requestBody.graphQL ? "/graphql" : nil), method: method,
                    params: params, records: records, expect: expect, paging: paging, takeoff: takeoff, body: requestBody.encoding,
                    budget: m["budget"].map { decodeBudget($0, what) } ?? .unlimited,
                    retry: m["retry"].flatMap { decodeRetry($0, what) },
                    timeout: m["timeout"].flatMap { context.positiveDuration($0, "'timeout' of \(what)") },
                    interceptors: m["interceptors"].map { decodeInterceptors($0, what) } ?? [],
                    cache: m["cache"].flatMap { decodeCache($0, what) },
                    fixtures: fixtures, location: entry.keyLocation,
                    partitions: m["for_each"].flatMap { decodePartitions($0, what, self: entry.key, managers: names, params: params) },
                    incremental: incremental))
            plans[plans.count - 1].bodyTemplate = requestBody.template
            plans[plans.count - 1].graphQL = requestBody.graphQL
            plans[plans.count - 1].bodyRateLimit = requestBody.rateLimit
            if let node = m["job"] {
                plans[plans.count - 1].job = decodeJob(node, what, known: known)
                checkJob(of: &plans[plans.count - 1], m, what)
            }
            if let node = m["format"], let format = context.choice(node, "response format", as: ResponseFormat.self) {
                plans[plans.count - 1].format = format
                if format != .json, format != .xml, m["records"] != nil {
                    context.error(
                        "'records' of \(what) is a path into a JSON body; a \(format.rawValue) body's rows are the records",
                        at: node.location)
                }
            }
            if let node = m["csv"] { plans[plans.count - 1].csv = decodeCSVOptions(node, what, format: plans[plans.count - 1].format) }
        }
        checkParents(of: plans)
        return plans
    }

    /// A parent → child fan-out must not loop (a manager that is, through its parents, its own parent).
    private func checkParents(of plans: [ManagerPlan]) {
        for plan in plans {
            // A parent's records decide its children's partitions: landing only what changed would
            // leave the children without the partitions of what did not.
            if let parent = plan.partitions?.parent, parent.index < plans.count, let incremental = plans[parent.index].incremental {
                context.error(
                    "manager '\(parent.name)' is incremental, but the partitions of '\(plan.ref.name)' come from its records, "
                        + "and an incremental run lands only the changed ones; remove 'incremental' from '\(parent.name)' "
                        + "(its children can be incremental)",
                    at: incremental.location)
            }
            // A partition skipped midway would be fetched again in part by the next run (duplicates):
            // with on_error: fail, the run keeps a checkpoint and the next one resumes at the failed page.
            if let partitions = plan.partitions, partitions.onError == .skip, plan.incremental != nil {
                context.error(
                    "manager '\(plan.ref.name)' is incremental with 'on_error: skip'; a skipped partition would be fetched again in "
                        + "part by the next run; use 'on_error: fail' (the run then keeps what it landed and the next one resumes there)",
                    at: partitions.location)
            }
            var seen: Set<Int> = [plan.ref.index]
            var current = plan.partitions?.parent
            while let parent = current, parent.index < plans.count {
                guard seen.insert(parent.index).inserted else {
                    context.error(
                        "'for_each' of manager '\(plan.ref.name)' makes a loop of parents through '\(parent.name)'; "
                            + "a parent → child chain must end at a manager without 'for_each: { manager: … }'",
                        at: plan.partitions?.location ?? plan.location)
                    break
                }
                current = plans[parent.index].partitions?.parent
            }
        }
    }

    private func decodeParams(_ node: YAMLNode, _ owner: String) -> [ParamPlan] {
        guard let m = context.mapping(node, "'params' of \(owner)", allowed: nil) else { return [] }
        return m.entries.compactMap { entry in
            let what = "parameter '\(entry.key)' of \(owner)"
            guard case .mapping = entry.value.content else {
                // A bare value is the parameter's default.
                return ParamPlan(
                    name: entry.key, required: false, kind: nil, pattern: nil,
                    defaultValue: context.value(entry.value, what), minimum: nil, maximum: nil, allowed: nil,
                    location: entry.keyLocation)
            }
            guard let p = context.mapping(entry.value, what, allowed: PipelineDecoder.paramKeys) else { return nil }
            let pattern = p["pattern"].flatMap { context.string($0, "'pattern' of \(what)") }
            if let pattern, let at = p["pattern"] {
                do { _ = try Regex(pattern) } catch {
                    context.error("'pattern' of \(what) is not a valid regular expression: \(error)", at: at.location)
                }
            }
            let allowed: [Value]? = p["enum"].flatMap {
                guard case .array(let items)? = context.value($0, "'enum' of \(what)") else {
                    context.error("'enum' of \(what) must be a list of allowed values", at: $0.location)
                    return nil
                }
                return items
            }
            let plan = ParamPlan(
                name: entry.key,
                required: p["required"].flatMap { context.bool($0, "'required' of \(what)") } ?? false,
                kind: p["type"].flatMap { context.choice($0, "parameter type", as: ParamPlan.Kind.self) },
                pattern: pattern,
                defaultValue: p["default"].flatMap { context.value($0, "'default' of \(what)") },
                minimum: p["min"].flatMap { context.number($0, "'min' of \(what)") },
                maximum: p["max"].flatMap { context.number($0, "'max' of \(what)") },
                allowed: allowed, location: entry.keyLocation)
            checkDeclaration(of: plan, p, what)
            return plan
        }
    }

    /// A parameter's own declaration must be usable: `min` at most `max`, and a default that
    /// passes the parameter's checks (the run would refuse it, with no location to point at).
    private func checkDeclaration(of plan: ParamPlan, _ p: Mapping, _ what: String) {
        if let minimum = plan.minimum, let maximum = plan.maximum, minimum > maximum, let at = p["min"] {
            context.error(
                "'min' of \(what) is \(minimum.clean), above its 'max' \(maximum.clean); no value could pass", at: at.location)
        }
        // A default that comes from the environment (`${VAR}`) may be a secret: the run checks it
        // and redacts it in the message.
        if let value = plan.defaultValue, let problem = plan.problem(with: value), let at = p["default"],
            !at.isInterpolated
        {
            context.error("'default' of \(what) fails its own checks: \(problem)", at: at.location)
        }
    }

    private func decodeExpect(_ node: YAMLNode, _ owner: String) -> ExpectPlan? {
        let what = "'expect' of \(owner)"
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.expectKeys) else { return nil }
        var status = [200]
        if let s = m["status"] {
            let items: [YAMLNode]
            if case .sequence(let list) = s.content { items = list } else { items = [s] }
            status = items.compactMap { context.int($0, "status codes in \(what)", in: 100...599) }
        }
        var require: [ValuePath] = []
        if let r = m["require"] {
            let items: [YAMLNode]
            if case .sequence(let list) = r.content { items = list } else { items = [r] }
            require = items.compactMap { context.path($0, "'require' in \(what)") }
        }
        let contentType = m["content_type"].flatMap { context.string($0, "'content_type' in \(what)") }
        return ExpectPlan(status: status, require: require, contentType: contentType)
    }

    private func decodePaging(_ node: YAMLNode, _ owner: String, params: [ParamPlan]) -> PagingPlan? {
        let what = "'paging' of \(owner)"
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.pagingKeys) else { return nil }
        guard let policyNode = context.requireKey("policy", in: m, what),
            let policy = context.choice(policyNode, "paging policy", as: PagingPlan.Policy.self)
        else { return nil }
        var sizeParam = m["size_param"].flatMap { context.string($0, "'size_param' in \(what)") }
        var stop: Set<StopCondition> = []
        if let s = m["stop"] {
            switch s.content {
            case .mapping:
                if let sm = context.mapping(s, "'stop' in \(what)", allowed: PipelineSchema.stop.keyNames) {
                    for entry in sm.entries {
                        guard let condition = StopCondition(rawValue: entry.key) else { continue }
                        stop.insert(condition)
                        if condition == .shortPage, case .scalar(let v) = entry.value.content, case .string(let name) = v.value {
                            sizeParam = name
                        }
                    }
                }
            default:
                let items: [YAMLNode]
                if case .sequence(let list) = s.content { items = list } else { items = [s] }
                for item in items {
                    if let c = context.choice(item, "stop condition", as: StopCondition.self) { stop.insert(c) }
                }
            }
        }
        if stop.contains(.shortPage) {
            if let sizeParam, let at = m["stop"] ?? m["size_param"], !params.contains(where: { $0.name == sizeParam }) {
                unknownReference("page size parameter", sizeParam, known: params.map(\.name), at: at.location)
            } else if sizeParam == nil, let at = m["stop"] {
                context.error("'short_page' needs the page size parameter: write 'stop: { short_page: page_size }'", at: at.location)
            }
        }
        let needsParam: Set<PagingPlan.Policy> = [.page, .offset, .cursor]
        let param = m["param"].flatMap { context.string($0, "'param' in \(what)") }
        if needsParam.contains(policy) && param == nil {
            context.error("paging policy '\(policy.rawValue)' needs 'param' (the query parameter to send)", at: m.node.location)
        }
        let token = m["token"].flatMap { context.path($0, "'token' in \(what)") }
        if (policy == .nextURL || (policy == .cursor && m["header"] == nil)) && token == nil {
            context.error(
                "paging policy '\(policy.rawValue)' needs 'token' (where the next token or URL is in the body)", at: m.node.location)
        }
        let hasMore = m["has_more"].flatMap { context.path($0, "'has_more' in \(what)") }
        if stop.isEmpty && policy != .none {
            stop = policy == .page || policy == .offset ? (hasMore == nil ? [.emptyPage] : []) : [.noNext]
        }
        return PagingPlan(
            policy: policy, param: param,
            start: m["start"].flatMap { context.int($0, "'start' in \(what)", in: 0...Int.max) } ?? (policy == .offset ? 0 : 1),
            sizeParam: sizeParam, tokenPath: token,
            tokenHeader: m["header"].flatMap { context.string($0, "'header' in \(what)") }, stop: stop,
            maxPages: m["max_pages"].flatMap { context.int($0, "'max_pages' in \(what)", in: 1...Int.max) },
            maxRecords: m["max_records"].flatMap { context.int($0, "'max_records' in \(what)", in: 1...Int.max) }, hasMore: hasMore)
    }
}

extension YAMLNode {
    /// Whether this is a scalar whose text refers to the environment (`${VAR}`).
    var isInterpolated: Bool {
        guard case .scalar(let scalar) = content else { return false }
        return scalar.text.contains("${")
    }
}

extension PipelineDecoder {
    /// `csv: { delimiter, columns }` of a CSV or TSV manager.
    func decodeCSVOptions(_ node: YAMLNode, _ what: String, format: ResponseFormat) -> CSVOptions? {
        let section = "'csv' of \(what)"
        guard let m = context.mapping(node, section, allowed: PipelineSchema.csvOptions.keyNames) else { return nil }
        if format != .csv, format != .tsv {
            context.error("\(section) says how a CSV or TSV body is split; give 'format: csv' or 'format: tsv' too", at: node.location)
        }
        var options = CSVOptions()
        if let at = m["delimiter"], let text = context.string(at, "'delimiter' in \(section)") {
            let byte: UInt8? = text == "tab" || text == "\t" ? 9 : (text.utf8.count == 1 ? text.utf8.first : nil)
            if let byte, byte != UInt8(ascii: "\""), byte != 10, byte != 13 {
                options.delimiter = byte
            } else {
                context.error(
                    "'delimiter' in \(section) is one ASCII character (like ';' or '|', or 'tab'), not a quote or a line break; got '\(text)'",
                    at: at.location)
            }
        }
        if let at = m["columns"], let names = context.stringList(at, "'columns' in \(section)") {
            if let repeated = names.enumerated().first(where: { names[..<$0.offset].contains($0.element) }) {
                context.error("'columns' in \(section) names '\(repeated.element)' twice", at: at.location)
            }
            options.columns = names
        }
        return options
    }
}
