import ReformEngine
import Testing

/// How a `sign` interceptor is read from YAML, and what a mistake in one says.
extension PipelineLoaderTests {
    func signing(_ options: String) -> String {
        """
        reform: 1
        services:
          api:
            base_url: "http://127.0.0.1:9"
            interceptors:
              - sign:
        \(options.split(separator: "\n").map { "          " + $0 }.joined(separator: "\n"))
        managers:
          m: { service: api, path: /signed }
        """
    }

    @Test func aSignInterceptorLoadsWithDefaultsAndKeepsTheSecretUnresolved() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "p.yaml",
            signing(
                """
                secret: ${API_SIGNING_SECRET}
                header: X-Signature
                message: "{method} {path}?{query} {header:Content-Type}"
                """))
        let pipeline = try PipelineLoader(environment: ["API_SIGNING_SECRET": "s3cret"]).load(path: path)
        guard case .sign(let plan, let secret)? = pipeline.services.first?.interceptors.first else {
            Issue.record("no sign interceptor")
            return
        }
        #expect(plan.algorithm == .hmacSHA256 && plan.encoding == .hex && plan.prefix.isEmpty && plan.timestampHeader == nil)
        #expect(plan.message.parts == [.method, .text(" "), .path, .text("?"), .query, .text(" "), .header("Content-Type")])
        #expect(secret.description == "${API_SIGNING_SECRET}")
    }

    @Test func signOptionsAreCheckedWithSuggestions() throws {
        let found = try diagnostics(
            signing(
                """
                algorithm: hmac-sha265
                secrett: ${S}
                header: X Signature
                encoding: base32
                message: "{method}\\n{timestmp}"
                """))
        #expect(
            found == [
                "p.yaml:7:11: error: the sign interceptor of service 'api' needs 'secret' "
                    + "(the signing key, read from the environment: \"${API_SIGNING_SECRET}\")",
                "p.yaml:7:22: error: unknown signing algorithm 'hmac-sha265'; did you mean 'hmac-sha256'? "
                    + "(expected one of: hmac-sha1, hmac-sha256, hmac-sha512)",
                "p.yaml:8:11: error: unknown key 'secrett' in the sign interceptor of service 'api'; did you mean 'secret'?",
                "p.yaml:9:19: error: 'header' in the sign interceptor of service 'api' must be a header name like X-Signature, not 'X Signature'",
                "p.yaml:10:21: error: unknown signature encoding 'base32'; did you mean 'base64'? (expected one of: hex, base64)",
                "p.yaml:11:20: error: 'message' in the sign interceptor of service 'api': unknown placeholder '{timestmp}' in the message; "
                    + "did you mean 'timestamp'? (expected: {method}, {path}, {query}, {body}, {body_sha256}, {timestamp}, {header:NAME})",
            ])
    }

    @Test func anUnknownAlgorithmAndAMissingSecretSayWhatIsExpected() throws {
        let found = try diagnostics(
            signing(
                """
                algorithm: hmac-md5
                header: X-Signature
                message: "{method}"
                """))
        #expect(
            found == [
                "p.yaml:7:11: error: the sign interceptor of service 'api' needs 'secret' "
                    + "(the signing key, read from the environment: \"${API_SIGNING_SECRET}\")",
                "p.yaml:7:22: error: unknown signing algorithm 'hmac-md5'; expected one of: hmac-sha1, hmac-sha256, hmac-sha512",
            ])
    }

    @Test func aSignedTimestampNeedsAHeaderAndSignNeedsOptions() throws {
        let found = try diagnostics(
            signing(
                """
                secret: ${S}
                header: X-Signature
                message: "{timestamp}"
                """))
        #expect(
            found == [
                "p.yaml:9:20: error: 'message' in the sign interceptor of service 'api' signs {timestamp}, but no 'timestamp_header' "
                    + "sends it to the service; add one, like timestamp_header: X-Timestamp"
            ])
        let bare = try diagnostics(
            """
            reform: 1
            services:
              api: { base_url: "http://127.0.0.1:9", interceptors: [log, sign, sing] }
            managers:
              m: { service: api, path: /signed }
            """)
        #expect(
            bare == [
                "p.yaml:3:62: error: the sign interceptor in 'interceptors' of service 'api' needs options: write it as { sign: … } "
                    + "(see docs/pipelines.md, services and interceptors)",
                "p.yaml:3:68: error: unknown interceptor 'sing' in 'interceptors' of service 'api'; did you mean 'sign'? "
                    + "(expected one of: log, headers, rate_limit, sign)",
            ])
    }
}
