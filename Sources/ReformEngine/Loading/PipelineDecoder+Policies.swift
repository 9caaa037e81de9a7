import ReformYAML

/// Request policies shared by services and managers: retry, auth, interceptors, budget, cache.
extension PipelineDecoder {
    static let retryKeys = PipelineSchema.retry.keyNames
    static let budgetKeys = PipelineSchema.budget.keyNames
    static let cacheKeys = PipelineSchema.cache.keyNames
    static let authKinds = PipelineSchema.auth.keyNames
    static let oauth2Keys = PipelineSchema.oauth2.keyNames
    static let interceptorKinds = PipelineSchema.interceptorEntry.keyNames

    /// Header names and `${VAR}` templates (kept unresolved: they may hold secrets).
    func decodeHeaders(_ node: YAMLNode, _ what: String) -> [(name: String, value: InterpolatedString)] {
        guard let m = context.mapping(node, what, allowed: nil) else { return [] }
        return m.entries.compactMap { header in
            context.template(header.value, "header '\(header.key)' in \(what)").map { (header.key, $0) }
        }
    }

    func decodeRetry(_ node: YAMLNode, _ owner: String) -> RetryPlan? {
        let what = "'retry' of \(owner)"
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.retryKeys) else { return nil }
        let attempts = m["attempts"].flatMap { context.int($0, "'attempts' in \(what)", in: 1...100) } ?? 3
        let backoff = m["backoff"].flatMap { context.choice($0, "backoff", as: RetryPlan.Backoff.self) } ?? .exponential
        let base = m["base"].flatMap { context.duration($0, "'base' in \(what)") } ?? 0.2
        let maxWait = m["max"].flatMap { context.duration($0, "'max' in \(what)") } ?? 5
        var on = ["429", "5xx", "timeout", "reset"]
        if let onNode = m["on"] {
            on = []
            for item in items(of: onNode) {
                guard case .scalar(let s) = item.content else {
                    context.error("entries of 'on' in \(what) must be status codes, 4xx/5xx, timeout or reset", at: item.location)
                    continue
                }
                let t = s.text
                let ok = ["timeout", "reset", "4xx", "5xx"].contains(t) || (Int(t).map { (100...599).contains($0) } ?? false)
                if ok {
                    on.append(t)
                } else {
                    context.error(
                        "'\(t)' in 'on' of \(what) is not a status code, 4xx, 5xx, timeout or reset"
                            + Suggestions.hint(for: t, in: ["timeout", "reset", "4xx", "5xx"]),
                        at: item.location)
                }
            }
        }
        var methods = RetryPlan.idempotentMethods
        if let node = m["methods"], let names = context.stringList(node, "'methods' in \(what)") {
            methods = Set(names.map { $0.uppercased() })
            for name in methods where !PipelineDecoder.methods.contains(name) && name != "OPTIONS" {
                context.error("unknown HTTP method '\(name)' in 'methods' of \(what)", at: node.location)
            }
        }
        return RetryPlan(attempts: attempts, backoff: backoff, base: base, max: maxWait, on: on, methods: methods)
    }

    func decodeBudget(_ node: YAMLNode, _ owner: String) -> BudgetPlan {
        let what = "'budget' of \(owner)"
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.budgetKeys) else { return .unlimited }
        return BudgetPlan(
            maxPages: m["max_pages"].flatMap { context.int($0, "'max_pages' in \(what)", in: 1...Int.max) },
            maxRecords: m["max_records"].flatMap { context.int($0, "'max_records' in \(what)", in: 1...Int.max) },
            maxCalls: m["max_calls"].flatMap { context.int($0, "'max_calls' in \(what)", in: 1...Int.max) },
            maxTime: m["max_time"].flatMap { context.duration($0, "'max_time' in \(what)") })
    }

    func decodeCache(_ node: YAMLNode, _ owner: String) -> CachePlan? {
        let what = "'cache' of \(owner)"
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.cacheKeys) else { return nil }
        guard let ttlNode = context.requireKey("ttl", in: m, what), let ttl = context.duration(ttlNode, "'ttl' in \(what)")
        else { return nil }
        let store = m["store"].flatMap { context.choice($0, "cache store", as: CachePlan.Store.self) } ?? .memory
        return CachePlan(ttl: ttl, store: store)
    }

    func decodeAuth(_ node: YAMLNode, _ owner: String) -> AuthPlan? {
        let what = "'auth' of \(owner)"
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.authKinds) else { return nil }
        guard m.entries.count == 1, let entry = m.entries.first else {
            context.error(
                "\(what) must have exactly one of: \(PipelineDecoder.authKinds.joined(separator: ", "))", at: node.location)
            return nil
        }
        let kindWhat = "'auth.\(entry.key)' of \(owner)"
        switch entry.key {
        case "bearer":
            return context.template(entry.value, kindWhat).map(AuthPlan.bearer)
        case "basic":
            guard let b = context.mapping(entry.value, kindWhat, allowed: PipelineSchema.basicAuth.keyNames),
                let userNode = context.requireKey("user", in: b, kindWhat),
                let passwordNode = context.requireKey("password", in: b, kindWhat),
                let user = context.template(userNode, "'user' in \(kindWhat)"),
                let password = context.template(passwordNode, "'password' in \(kindWhat)")
            else { return nil }
            return .basic(user: user, password: password)
        case "api_key":
            guard let k = context.mapping(entry.value, kindWhat, allowed: PipelineSchema.apiKey.keyNames),
                let valueNode = context.requireKey("value", in: k, kindWhat),
                let value = context.template(valueNode, "'value' in \(kindWhat)")
            else { return nil }
            if let header = k["header"].flatMap({ context.string($0, "'header' in \(kindWhat)") }), k["query"] == nil {
                return .apiKey(name: header, inQuery: false, value: value)
            }
            if let query = k["query"].flatMap({ context.string($0, "'query' in \(kindWhat)") }), k["header"] == nil {
                return .apiKey(name: query, inQuery: true, value: value)
            }
            context.error("\(kindWhat) needs either 'header: NAME' or 'query: NAME' (where the key is sent)", at: entry.value.location)
            return nil
        default:
            return decodeOAuth2(entry.value, kindWhat).map(AuthPlan.oauth2)
        }
    }

    private func decodeOAuth2(_ node: YAMLNode, _ what: String) -> OAuth2Plan? {
        guard let o = context.mapping(node, what, allowed: PipelineDecoder.oauth2Keys),
            let urlNode = context.requireKey("token_url", in: o, what),
            let tokenURL = context.template(urlNode, "'token_url' in \(what)")
        else { return nil }
        let grant = o["grant"].flatMap { context.choice($0, "OAuth2 grant", as: OAuth2Plan.Grant.self) } ?? .clientCredentials
        let secret: (String) -> InterpolatedString? = { key in
            o[key].flatMap { self.context.template($0, "'\(key)' in \(what)") }
        }
        let plan = OAuth2Plan(
            tokenURL: tokenURL, grant: grant, clientID: secret("client_id"), clientSecret: secret("client_secret"),
            refreshToken: secret("refresh_token"), scope: o["scope"].flatMap { context.string($0, "'scope' in \(what)") })
        if grant == .clientCredentials && (plan.clientID == nil || plan.clientSecret == nil) {
            context.error("the client_credentials grant in \(what) needs 'client_id' and 'client_secret'", at: node.location)
        }
        if grant == .refreshToken && plan.refreshToken == nil {
            context.error("the refresh_token grant in \(what) needs 'refresh_token'", at: node.location)
        }
        return plan
    }

    /// `interceptors: [log, { headers: {…} }, { rate_limit: 5 }, { sign: {…} }]`.
    func decodeInterceptors(_ node: YAMLNode, _ owner: String) -> [InterceptorPlan] {
        let what = "'interceptors' of \(owner)"
        guard case .sequence(let list) = node.content else {
            context.error("\(what) must be a list, as in [log, { rate_limit: 5 }]", at: node.location)
            return []
        }
        return list.compactMap { item in
            if case .scalar(let s) = item.content {
                if s.text == "log" { return .log }
                if PipelineDecoder.interceptorKinds.contains(s.text) {
                    context.error(
                        "the \(s.text) interceptor in \(what) needs options: write it as { \(s.text): … } (see docs/pipelines.md, services and interceptors)",
                        at: item.location)
                    return nil
                }
                let hint = Suggestions.hint(for: s.text, in: PipelineDecoder.interceptorKinds)
                let kinds = PipelineDecoder.interceptorKinds.joined(separator: ", ")
                context.error(
                    "unknown interceptor '\(s.text)' in \(what)"
                        + (hint.isEmpty ? "; expected one of: \(kinds)" : "\(hint) (expected one of: \(kinds))"),
                    at: item.location)
                return nil
            }
            guard let m = context.mapping(item, "an entry of \(what)", allowed: PipelineDecoder.interceptorKinds),
                m.entries.count == 1, let entry = m.entries.first
            else {
                if case .mapping = item.content {
                    context.error("each entry of \(what) names one interceptor", at: item.location)
                }
                return nil
            }
            switch entry.key {
            case "headers":
                return .headers(decodeHeaders(entry.value, "the headers interceptor of \(owner)"))
            case "rate_limit":
                let rate = context.number(entry.value, "'rate_limit' (calls per second) in \(what)")
                guard let rate, rate > 0, rate.isFinite else {
                    if rate != nil { context.error("'rate_limit' in \(what) must be above 0", at: entry.value.location) }
                    return nil
                }
                guard rate >= 1.0 / 86_400 else {
                    context.error(
                        "'rate_limit' in \(what) is \(rate) calls per second, less than one a day (0.0000116); "
                            + "a slower limit is a mistake: give calls per second, as in { rate_limit: 5 }",
                        at: entry.value.location)
                    return nil
                }
                return .rateLimit(perSecond: rate)
            case "sign":
                return decodeSign(entry.value, "the sign interceptor of \(owner)")
            default:
                return .log
            }
        }
    }

    private func items(of node: YAMLNode) -> [YAMLNode] {
        if case .sequence(let list) = node.content { return list }
        return [node]
    }
}
