import ReformYAML

extension PipelineDecoder {
    static let serviceKeys = PipelineSchema.service.keyNames

    func decodeServices(_ node: YAMLNode) -> [ServicePlan] {
        namedEntries(node, "services").compactMap { entry in
            let what = "service '\(entry.key)'"
            guard let m = context.mapping(entry.value, what, allowed: PipelineDecoder.serviceKeys) else { return nil }
            var baseURLs: [String: InterpolatedString] = [:]
            if let base = m["base_url"] {
                if case .scalar = base.content {
                    baseURLs["default"] = context.template(base, "'base_url' of \(what)")
                } else if let envs = context.mapping(base, "'base_url' of \(what)", allowed: nil) {
                    for env in envs.entries {
                        baseURLs[env.key] = context.template(env.value, "'base_url.\(env.key)' of \(what)")
                    }
                    if baseURLs["default"] == nil {
                        context.error("'base_url' of \(what) needs a 'default' entry (used without --env)", at: base.location)
                    }
                }
                for (env, template) in baseURLs {
                    let url = template.description
                    guard !(url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("${")) else { continue }
                    context.error("base URL '\(url)' (\(env)) of \(what) must start with http:// or https://", at: base.location)
                }
            } else {
                context.error("\(what) needs a 'base_url'", at: entry.value.location)
            }
            let headers = m["headers"].map { decodeHeaders($0, "'headers' of \(what)") } ?? []
            let timeout = m["timeout"].flatMap { context.positiveDuration($0, "'timeout' of \(what)") }
            let retry = m["retry"].flatMap { decodeRetry($0, what) }
            var plan = ServicePlan(
                name: entry.key, baseURLs: baseURLs, headers: headers, timeout: timeout, retry: retry,
                auth: m["auth"].flatMap { decodeAuth($0, what) },
                interceptors: m["interceptors"].map { decodeInterceptors($0, what) } ?? [],
                location: entry.keyLocation)
            plan.connections = m["connections"].flatMap { context.int($0, "'connections' of \(what)", in: 1...256) }
            plan.tls = m["tls"].flatMap { decodeTLS($0, what) }
            if let node = m["proxy"], let proxy = context.string(node, "'proxy' of \(what)") {
                if proxy == "none" || ProxyChoice.parse(proxy) != nil {
                    plan.proxy = proxy
                } else {
                    context.error("'proxy' of \(what) must be a proxy's URL, like http://proxy.internal:3128, or none", at: node.location)
                }
            }
            return plan
        }
    }

    /// `tls:`: PEM files resolved against the pipeline's folder (they may be anywhere: a CA or a
    /// mounted secret is read, never written), each checked to be a readable file now.
    private func decodeTLS(_ node: YAMLNode, _ what: String) -> TLSPlan? {
        guard let m = context.mapping(node, "'tls' of \(what)", allowed: PipelineSchema.tls.keyNames) else { return nil }
        func file(_ key: String) -> String? {
            guard let value = m[key], let relative = context.string(value, "'tls.\(key)' of \(what)") else { return nil }
            let resolved = FilePaths.resolve(relative, against: folder)
            guard FilePaths.exists(resolved) else {
                context.error("'tls.\(key)' of \(what): '\(relative)' does not exist (looked for \(resolved))", at: value.location)
                return nil
            }
            return resolved
        }
        var serverName: String?
        if let value = m["server_name"], let name = context.string(value, "'tls.server_name' of \(what)") {
            if name.isEmpty || name.contains(where: { $0 == "/" || $0 == ":" || $0 == " " || !$0.isASCII }) {
                context.error(
                    "'tls.server_name' of \(what) must be a host name (api.example.com), not '\(name)'", at: value.location)
            } else {
                serverName = name.lowercased()
            }
        }
        let plan = TLSPlan(
            caFile: file("ca_file"), clientCertificate: file("client_cert"), clientKey: file("client_key"), serverName: serverName)
        if (m["client_cert"] == nil) != (m["client_key"] == nil) {
            context.error(
                "'tls' of \(what) needs client_cert and client_key together (the certificate and its private key)", at: node.location)
        }
        return plan
    }
}
