import ReformYAML

/// `{ sign: { algorithm, secret, header, encoding, message, timestamp_header, prefix } }`.
extension PipelineDecoder {
    static let signKeys = PipelineSchema.sign.keyNames

    func decodeSign(_ node: YAMLNode, _ what: String) -> InterceptorPlan? {
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.signKeys) else { return nil }
        var failed = false
        /// The value at `key` read by `read`, `fallback` when absent; a value that does not read fails.
        func optional<T>(_ key: String, _ fallback: T, _ read: (YAMLNode) -> T?) -> T {
            guard let node = m[key] else { return fallback }
            if let value = read(node) { return value }
            failed = true
            return fallback
        }
        let algorithm = optional("algorithm", SigningPlan.Algorithm.hmacSHA256) {
            context.choice($0, "signing algorithm", as: SigningPlan.Algorithm.self)
        }
        let encoding = optional("encoding", SigningPlan.Encoding.hex) {
            context.choice($0, "signature encoding", as: SigningPlan.Encoding.self)
        }
        let timestampHeader: String? = optional("timestamp_header", nil) { headerName($0, "'timestamp_header' in \(what)") }
        let prefix = optional("prefix", "") { context.string($0, "'prefix' in \(what)") }
        let secret = required("secret", in: m, what, hint: "the signing key, read from the environment: \"${API_SIGNING_SECRET}\"")
            .flatMap { context.template($0, "'secret' in \(what)") }
        if let secret, secret.variables.isEmpty, let secretNode = m["secret"] {
            context.warning(
                "the signing secret in \(what) is written in the pipeline; read it from the environment "
                    + "(\"${API_SIGNING_SECRET}\") so it is not committed", at: secretNode.location)
        }
        let header = required("header", in: m, what, hint: "the header the signature goes in, like X-Signature")
            .flatMap { headerName($0, "'header' in \(what)") }
        let message = required(
            "message", in: m, what, hint: "the canonical string, like \"{method}\\n{path}\\n{query}\\n{timestamp}\\n{body_sha256}\""
        )
        .flatMap { signingMessage($0, "'message' in \(what)") }
        if let message, let node = m["message"], message.usesTimestamp, m["timestamp_header"] == nil {
            context.error(
                "'message' in \(what) signs {timestamp}, but no 'timestamp_header' sends it to the service; "
                    + "add one, like timestamp_header: X-Timestamp", at: node.location)
            failed = true
        }
        if let message, let node = m["timestamp_header"], !message.usesTimestamp {
            context.warning(
                "'timestamp_header' in \(what) sends a time the signature does not cover; add {timestamp} to 'message'",
                at: node.location)
        }
        guard !failed, let secret, let header, let message else { return nil }
        let plan = SigningPlan(
            algorithm: algorithm, header: header, encoding: encoding, message: message, timestampHeader: timestampHeader,
            prefix: prefix)
        return .sign(plan, secret: secret)
    }

    private func required(_ key: String, in m: Mapping, _ what: String, hint: String) -> YAMLNode? {
        if let node = m[key] { return node }
        context.error("\(what) needs '\(key)' (\(hint))", at: m.node.location)
        return nil
    }

    private func headerName(_ node: YAMLNode, _ what: String) -> String? {
        guard let name = context.string(node, what) else { return nil }
        guard !name.isEmpty, name.allSatisfy(SigningMessage.isTokenCharacter) else {
            context.error("\(what) must be a header name like X-Signature, not '\(name)'", at: node.location)
            return nil
        }
        return name
    }

    private func signingMessage(_ node: YAMLNode, _ what: String) -> SigningMessage? {
        guard let text = context.string(node, what) else { return nil }
        do { return try SigningMessage(parsing: text) } catch {
            context.error("\(what): \(error.message)", at: node.location)
            return nil
        }
    }
}
