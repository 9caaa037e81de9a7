import ReformEngine
import ReformSDK
import Synchronization
import Testing

/// The `sign` interceptor: known answers, and signatures the real server checks with Python's
/// `hmac` (its own rendering of the canonical string, not the engine's).
@Suite(.timeLimit(.minutes(10))) struct SigningTests {
    static let message = "{method}\n{path}\n{query}\n{timestamp}\n{body_sha256}"

    @Test(arguments: [
        (SigningPlan.Algorithm.hmacSHA1, SigningPlan.Encoding.hex, "", "ccf1378231f6e34fba28dca59df988c7d84dd14a"),
        (.hmacSHA256, .hex, "sha256=", "sha256=bd19b74f46fe0bdc661620b1b490af685b04909227793a974a82dce5e362ff2c"),
        (.hmacSHA256, .base64, "", "vRm3T0b+C9xmFiCxtJCvaFsEkJIneTqXSoLc5eNi/yw="),
        (
            .hmacSHA512, .hex, "",
            "00437f4b933cd1992454b632dfbbfde6403fcca815c4c67c5852098b2ef455233287ab16bf2bcd4b21e1b0418ea1937f74b90daecc28148412414a5e4fde7dcc"
        ),
    ])
    func theCanonicalStringAndSignatureMatchOpenSSL(
        algorithm: SigningPlan.Algorithm, encoding: SigningPlan.Encoding, prefix: String, expected: String
    ) throws {
        // openssl dgst -sha256 -hmac s3cret-key over the same bytes gives the expected values.
        var request = HTTPRequest(
            method: "get", path: "/signed", query: [QueryItem(name: "b", value: "x y"), QueryItem(name: "a", value: "1")])
        request.baseURL = "http://127.0.0.1:8808/api/"
        let message = try SigningMessage(parsing: Self.message)
        let canonical = message.render(request, timestamp: 1_700_000_000)
        #expect(canonical == "GET\n/api/signed\na=1&b=x%20y\n1700000000\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        request.baseURL = nil
        let plan = SigningPlan(algorithm: algorithm, header: "X-Signature", encoding: encoding, message: message, prefix: prefix)
        #expect(plan.signature(of: message.render(request, timestamp: 1_700_000_000), secret: "s3cret-key") == expected)
    }

    @Test func headersBodiesAndBracesRenderAsDocumented() throws {
        let message = try SigningMessage(parsing: "{{{method}}} {header:content-type}|{header:X-Missing}|{body}")
        let request = HTTPRequest(
            method: "POST", path: "/x", headers: [QueryItem(name: "Content-Type", value: "application/json")],
            body: Array(#"{"a":1}"#.utf8))
        #expect(message.render(request, timestamp: 0) == #"{POST} application/json||{"a":1}"#)
        #expect(!message.usesTimestamp)
        #expect(throws: SigningMessageError.self) { try SigningMessage(parsing: "{method") }
        #expect(throws: SigningMessageError.self) { try SigningMessage(parsing: "{header:}") }
    }

    @Test(arguments: [("hmac-sha1", "hex", ""), ("hmac-sha256", "base64", "sha256="), ("hmac-sha512", "hex", "v1=")])
    func aGoodSignatureIsAcceptedByTheServer(algorithm: String, encoding: String, prefix: String) async throws {
        let server = try TestServer()
        let message = Self.message + "\n{header:X-API-Key}"
        try await server.checkSignatures(
            secret: "s3cret-signing-key", algorithm: algorithm, encoding: encoding, prefix: prefix, message: message, maxSkew: 300)
        let environment = ["SIGNING_SECRET": "s3cret-signing-key", "KEY": "k-123"]
        let pipeline = try server.pipeline(
            service(
                """
                auth: { api_key: { header: X-API-Key, value: "${KEY}" } }
                interceptors:
                  - sign:
                      algorithm: \(algorithm)
                      secret: ${SIGNING_SECRET}
                      header: X-Signature
                      encoding: \(encoding)
                      prefix: "\(prefix)"
                      message: "{method}\\n{path}\\n{query}\\n{timestamp}\\n{body_sha256}\\n{header:X-API-Key}"
                      timestamp_header: X-Timestamp
                """)
                + "\nmanagers:\n  m: { service: api, path: /signed, params: { b: \"x y\", a: \"商品\" }, records: items }",
            environment: environment)
        let landing = try await server.manager("m", in: pipeline, environment: environment).load()
        #expect(landing.records.count == 3)
    }

    @Test func aWrongSecretIsTheServersHTTP401AndTheSecretIsNeverShown() async throws {
        let server = try TestServer()
        try await server.checkSignatures(secret: "the-right-key", message: Self.message)
        let environment = ["SIGNING_SECRET": "wrong-signing-key"]
        let pipeline = try server.pipeline(
            service(
                """
                interceptors:
                  - log
                  - sign: { secret: "${SIGNING_SECRET}", header: X-Signature, timestamp_header: X-Timestamp,
                            message: "{method}\\n{path}\\n{query}\\n{timestamp}\\n{body_sha256}" }
                """)
                + "\nmanagers:\n  m: { service: api, path: /signed, params: { secret: \"wrong-signing-key\" } }",
            environment: environment)
        let manager = try server.manager("m", in: pipeline, environment: environment)
        do {
            _ = try await manager.load()
            Issue.record("expected the signature to be rejected")
        } catch {
            #expect(error.kind == .credentialsRejected)
            #expect(error.status == 401)
            #expect(error.message.contains("'sign'"), "\(error.message)")
            #expect(!error.description.contains("wrong-signing-key"), "\(error.description)")
            #expect(error.request == "GET /signed?secret=***", "the request key is redacted too")
        }
    }

    @Test func everyAttemptIsSignedAnewWithItsOwnTimestamp() async throws {
        let server = try TestServer()
        try await server.checkSignatures(secret: "s3cret-signing-key", message: Self.message)
        let pipeline = try server.pipeline(
            service("retry: { attempts: 3, base: 10ms, methods: [POST] }")
                + "\nmanagers:\n  m: { service: api, method: POST, body: json, path: \"/signed?fail=1\", params: { n: 1 }, records: items }"
        )
        let ticks = Atomic<Int64>(1_000)
        let signer = SigningInterceptor(
            plan: SigningPlan(header: "X-Signature", message: try SigningMessage(parsing: Self.message), timestampHeader: "X-Timestamp"),
            secret: "s3cret-signing-key", clock: { ticks.add(1, ordering: .relaxed).newValue })
        let landing = try await server.manager("m", in: pipeline, interceptors: [signer]).load()
        guard case .object(let body)? = landing.response.body, case .array(let attempts)? = body["attempts"] else {
            Issue.record("no attempts in \(String(describing: landing.response.body))")
            return
        }
        let seen = attempts.compactMap { if case .object(let o) = $0 { o } else { nil } }
        #expect(seen.map { $0["timestamp"] } == [.string("1001"), .string("1002")])
        #expect(seen.allSatisfy { $0["valid"] == .bool(true) }, "the server checked both signatures: \(seen)")
        #expect(seen[0]["signature"] != seen[1]["signature"])
        #expect(body["body"] == .string(#"{"n":1}"#), "the signed body is what was sent")
    }

    /// Notes the signature and credentials of every request that went out.
    final class Sent: Interceptor {
        let requests = Mutex<[(authorization: String?, signature: String?)]>([])
        func afterCall(_ request: HTTPRequest, result: Result<HTTPResponse, TransportError>, seconds: Double, context: CallContext) async {
            requests.withLock { $0.append((request.header("Authorization"), request.header("X-Signature"))) }
        }
    }

    @Test func aRefreshedTokenIsSignedAgain() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service("auth: { oauth2: { token_url: /oauth/token, client_id: reform, client_secret: s3cret } }")
                + "\nmanagers:\n  m: { service: api, path: /oauth/items, records: items }")
        let signer = SigningInterceptor(
            plan: SigningPlan(header: "X-Signature", message: try SigningMessage(parsing: "{method} {path} {header:Authorization}")),
            secret: "s3cret-signing-key", clock: { 1_000 })
        let sent = Sent()
        let manager = try server.manager("m", in: pipeline, interceptors: [signer, sent])
        _ = try await manager.load()
        var expire = HTTPRequest(method: "POST", path: "/_admin/expire")
        expire.baseURL = server.url
        _ = try await LiveTransport().send(expire, for: ManagerRef(index: 0, name: "test"))
        _ = try await manager.load()
        let seen = sent.requests.withLock { $0 }
        #expect(seen.map(\.authorization) == ["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"])
        #expect(seen[1].signature == seen[0].signature, "the same request, token and time: the same signature")
        #expect(seen[2].signature != seen[1].signature, "the refreshed token is signed anew")
        #expect(seen[2].signature == signer.plan.signature(of: "GET /oauth/items Bearer tok-2", secret: "s3cret-signing-key"))
    }
}

extension TestServer {
    /// Tells the server's `/signed` endpoint how to check signatures (`POST /_admin/signing`).
    func checkSignatures(
        secret: String, algorithm: String = "hmac-sha256", encoding: String = "hex", prefix: String = "", message: String,
        maxSkew: Int? = nil
    ) async throws {
        var config: Object = [
            "algorithm": .string(algorithm), "secret": .string(secret), "header": "X-Signature", "encoding": .string(encoding),
            "prefix": .string(prefix), "timestamp_header": "X-Timestamp", "message": .string(message),
        ]
        if let maxSkew { config["max_skew"] = .int(maxSkew) }
        var request = HTTPRequest(method: "POST", path: "/_admin/signing", body: Array(JSON.compactString(.object(config)).utf8))
        request.baseURL = url
        let response = try await LiveTransport().send(request, for: ManagerRef(index: 0, name: "test"))
        #expect(response.status == 200, "\(response.excerpt() ?? "")")
    }
}
