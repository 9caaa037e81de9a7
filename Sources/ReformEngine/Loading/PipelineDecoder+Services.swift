import ReformYAML

extension PipelineDecoder {
    static let serviceKeys = ["base_url", "headers", "timeout", "retry", "auth", "description"]
    static let retryKeys = ["attempts", "backoff", "base", "max", "on"]

    func decodeServices(_ node: YAMLNode) -> [ServicePlan] {
        namedEntries(node, "services").compactMap { entry in
            let what = "service '\(entry.key)'"
            guard let m = context.mapping(entry.value, what, allowed: PipelineDecoder.serviceKeys) else { return nil }
            var baseURLs: [String: String] = [:]
            if let base = m["base_url"] {
                if case .scalar = base.content {
                    baseURLs["default"] = context.string(base, "'base_url' of \(what)")
                } else if let envs = context.mapping(base, "'base_url' of \(what)", allowed: nil) {
                    for env in envs.entries {
                        baseURLs[env.key] = context.string(env.value, "'base_url.\(env.key)' of \(what)")
                    }
                    if baseURLs["default"] == nil {
                        context.error("'base_url' of \(what) needs a 'default' entry (used without --env)", at: base.location)
                    }
                }
                for (env, url) in baseURLs where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                    context.error("base URL '\(url)' (\(env)) of \(what) must start with http:// or https://", at: base.location)
                }
            } else {
                context.error("\(what) needs a 'base_url'", at: entry.value.location)
            }
            var headers: [(name: String, value: InterpolatedString)] = []
            if let h = m["headers"], let hm = context.mapping(h, "'headers' of \(what)", allowed: nil) {
                for header in hm.entries {
                    if let t = context.template(header.value, "header '\(header.key)' of \(what)") {
                        headers.append((header.key, t))
                    }
                }
            }
            let timeout = m["timeout"].flatMap { context.duration($0, "'timeout' of \(what)") }
            let retry = m["retry"].flatMap { decodeRetry($0, what) }
            if let auth = m["auth"] {
                context.error("'auth' of \(what) is not supported by this version yet; send credentials with 'headers'", at: auth.location)
            }
            return ServicePlan(
                name: entry.key, baseURLs: baseURLs, headers: headers, timeout: timeout, retry: retry,
                location: entry.keyLocation)
        }
    }

    private func decodeRetry(_ node: YAMLNode, _ owner: String) -> RetryPlan? {
        let what = "'retry' of \(owner)"
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.retryKeys) else { return nil }
        let attempts = m["attempts"].flatMap { context.int($0, "'attempts' in \(what)", in: 1...100) } ?? 3
        let backoff = m["backoff"].flatMap { context.choice($0, "backoff", as: RetryPlan.Backoff.self) } ?? .exponential
        let base = m["base"].flatMap { context.duration($0, "'base' in \(what)") } ?? 0.2
        let maxWait = m["max"].flatMap { context.duration($0, "'max' in \(what)") } ?? 5
        var on = ["429", "5xx", "timeout", "reset"]
        if let onNode = m["on"] {
            on = []
            let items: [YAMLNode]
            if case .sequence(let s) = onNode.content { items = s } else { items = [onNode] }
            for item in items {
                guard case .scalar(let s) = item.content else {
                    context.error("entries of 'on' in \(what) must be status codes, 4xx/5xx, timeout or reset", at: item.location)
                    continue
                }
                let t = s.text
                let ok = ["timeout", "reset", "4xx", "5xx"].contains(t) || (Int(t).map { (100...599).contains($0) } ?? false)
                if ok { on.append(t) } else {
                    context.error(
                        "'\(t)' in 'on' of \(what) is not a status code, 4xx, 5xx, timeout or reset"
                            + Suggestions.hint(for: t, in: ["timeout", "reset", "4xx", "5xx"]),
                        at: item.location)
                }
            }
        }
        return RetryPlan(attempts: attempts, backoff: backoff, base: base, max: maxWait, on: on)
    }
}
