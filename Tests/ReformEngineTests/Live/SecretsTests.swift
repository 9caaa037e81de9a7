import Foundation
import ReformSDK
import ReformTestSupport
import Testing

/// Values from the environment used in headers or auth are never printed: not on stdout or stderr
/// (the log interceptor, errors, `--stats`), not in recorded fixtures, the dead-letter file or the
/// output; neither as written, nor percent-encoded (a query key, a path), nor as Basic credentials.
/// Through the real binary against the real server.
@Suite(.timeLimit(.minutes(10))) struct SecretsTests {
    /// Secrets with characters a URL has to encode, so a leak in encoded form shows too. The server
    /// accepts only `s3cret` for Basic auth and OAuth2.
    static let environment = [
        "HEADER_SECRET": "hdr secret/+=1",
        "TRACE_SECRET": "trace-Secret-2",
        "QUERY_SECRET": "q+S3cr3t/key= 3",
        "BEARER_SECRET": "bearer.Secret~4",
        "BASIC_PASSWORD": "s3cret",
        "CLIENT_SECRET": "s3cret",
        "BAD_SECRET": "bad+Secret/5",
    ]

    /// Every form of every secret that must not be printed.
    static var forbidden: [String] {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let values = Array(environment.values)
        let encoded = values.compactMap { $0.addingPercentEncoding(withAllowedCharacters: unreserved) }
        let basic = Data("reform:s3cret".utf8).base64EncodedString()
        return Array(Set(values + encoded + [basic]))
    }

    static let pipeline = """
        reform: 1
        services:
          keyed:
            base_url: "${TEST_URL}"
            headers: { X-Secret: "${HEADER_SECRET}" }
            auth: { api_key: { query: api_key, value: "${QUERY_SECRET}" } }
            interceptors: [log, { headers: { X-Trace: "${TRACE_SECRET}" } }]
          bearer:
            base_url: "${TEST_URL}"
            auth: { bearer: "${BEARER_SECRET}" }
            interceptors: [log]
          basic:
            base_url: "${TEST_URL}"
            auth: { basic: { user: reform, password: "${BASIC_PASSWORD}" } }
            interceptors: [log]
          oauth:
            base_url: "${TEST_URL}"
            auth: { oauth2: { token_url: /oauth/token, client_id: reform, client_secret: "${CLIENT_SECRET}" } }
            interceptors: [log]
          denied:
            base_url: "${TEST_URL}"
            auth: { oauth2: { token_url: /oauth/token, client_id: reform, client_secret: "${BAD_SECRET}" } }
            interceptors: [log]
        managers:
          items:
            service: keyed
            path: /paged/offset
            params: { limit: 5, total: 12, tag: "${QUERY_SECRET}" }
            records: items
            paging: { policy: offset, param: offset, size_param: limit }
            fixtures: fixtures/items
          echo-keyed: { service: keyed, path: /echo, fixtures: fixtures/echo-keyed }
          echo-bearer: { service: bearer, path: /echo, fixtures: fixtures/echo-bearer }
          echo-basic: { service: basic, path: /echo, fixtures: fixtures/echo-basic }
          basic-items: { service: basic, path: /auth/basic, records: items, fixtures: fixtures/basic-items }
          oauth-items: { service: oauth, path: /oauth/items, records: items, fixtures: fixtures/oauth-items }
          missing-path:
            service: keyed
            path: "/nothing/{key}"
            params: { key: "${QUERY_SECRET}", tag: "${QUERY_SECRET}" }
          missing-records: { service: keyed, path: /echo, records: data.items }
          bad-param:
            service: keyed
            path: /echo
            params: { tag: { default: "${QUERY_SECRET}", pattern: "[a-z]+" } }
          refused: { service: denied, path: /oauth/items, records: items }
        reformers:
          strict:
            keys: { id: kId, when: kWhen }
            from:
              items: { id: id, when: { path: name, convert: date } }
              echo-keyed: { id: method, when: { value: x } }
              echo-bearer: { id: method, when: { value: x } }
              echo-basic: { id: method, when: { value: x } }
              basic-items: { id: id, when: { value: x } }
              oauth-items: { id: id, when: { value: x } }
        runs:
          default:
            managers: [items, echo-keyed, echo-bearer, echo-basic, basic-items, oauth-items]
            reform: [strict]
            output: { format: ndjson, path: out/all.ndjson }
          missing-path: { managers: [missing-path], output: { format: ndjson, path: out/missing-path.ndjson } }
          missing-records: { managers: [missing-records], output: { format: ndjson, path: out/missing-records.ndjson } }
          refused: { managers: [refused], output: { format: ndjson, path: out/refused.ndjson } }
          bad-param: { managers: [bad-param], output: { format: ndjson, path: out/bad-param.ndjson } }
        """

    /// Every file under `folder` but the pipeline, by path relative to it.
    func writtenFiles(in folder: TemporaryFolder) throws -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let name = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            guard name != "pipeline.yaml", FileManager.default.fileExists(atPath: folder.path + "/" + name, isDirectory: &isFolder),
                !isFolder.boolValue
            else { continue }
            files[name] = try folder.read(name)
        }
        return files
    }

    /// Records that no form of any secret is in `text`.
    func expectNoSecret(in text: String, _ place: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in Self.forbidden where text.contains(secret) {
            Issue.record("\(place) shows the secret '\(secret)':\n\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func aRecordedRunWithStatsLogsAndRejectsPrintsNoSecret() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let pipeline = try folder.write("pipeline.yaml", Self.pipeline)
        let run = try await ReformBinary.run(
            ["run", pipeline, "--record", "--stats", "json", "--dead-letter", folder.path + "/dead.ndjson"],
            environment: Self.environment.merging(["TEST_URL": server.url]) { a, _ in a }, in: folder.path)
        #expect(run.status == 3, "the 12 items are rejected, everything else lands: \(run.stderr)")
        #expect(run.stderr.contains("reform: items GET \(server.url)/paged/offset?"), "the log interceptor logged")
        #expect(run.stderr.contains("api_key=***"))
        #expect(run.stderr.contains("\"managers\""), "--stats printed")
        let files = try writtenFiles(in: folder)
        #expect(files.keys.contains("dead.ndjson") && files.keys.contains("out/all.ndjson"))
        #expect(files.keys.filter { $0.hasPrefix("fixtures/") }.count == 9, "4 pages of items, 1 of each other manager")
        #expect(files["fixtures/echo-keyed/001.json"]?.contains("\"x-secret\": \"***\"") == true)
        #expect(files["fixtures/echo-keyed/001.json"]?.contains("\"x-trace\": \"***\"") == true)
        #expect(files["fixtures/echo-bearer/001.json"]?.contains("\"authorization\": \"Bearer ***\"") == true)
        #expect(files["fixtures/echo-basic/001.json"]?.contains("\"authorization\": \"Basic ***\"") == true)
        expectNoSecret(in: run.stdout, "stdout")
        expectNoSecret(in: run.stderr, "stderr")
        for (name, text) in files { expectNoSecret(in: text, name) }
        // The secrets were sent: the server saw them.
        let sent = try await server.requests(path: "/paged/offset").first?["query"]
        guard case .object(let query)? = sent else { throw ServerStartError(output: "no query logged") }
        #expect(query["api_key"] == .string("q+S3cr3t/key= 3") && query["tag"] == .string("q+S3cr3t/key= 3"))
    }

    /// The same recorded run with its secrets kept out of the environment: all but one in an
    /// `--env-file`, the bearer token in a file of its own (`${file:PATH}`, as a container mounts
    /// it, with the line break it ends with); each is sent, and hidden everywhere a `${VAR}` is.
    @Test func secretsFromAnEnvFileAndASecretFilePrintNoSecret() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let secrets = try TemporaryFolder()
        let tokenFile = try secrets.write("bearer.token", (Self.environment["BEARER_SECRET"] ?? "") + "\n")
        let dotenv = Self.environment.filter { $0.key != "BEARER_SECRET" }.sorted { $0.key < $1.key }.map { name, value in
            "export \(name)=\"\(value)\"  # from the vault"
        }
        let envFile = try secrets.write("secrets.env", "# test secrets\n\n" + dotenv.joined(separator: "\n") + "\n")
        let pipeline = try folder.write(
            "pipeline.yaml", Self.pipeline.replacingOccurrences(of: "${BEARER_SECRET}", with: "${file:\(tokenFile)}"))
        let run = try await ReformBinary.run(
            ["run", pipeline, "--record", "--env-file", envFile, "--stats", "json", "--dead-letter", folder.path + "/dead.ndjson"],
            environment: ["TEST_URL": server.url], in: folder.path)
        #expect(run.status == 3, "the 12 items are rejected, everything else lands: \(run.stderr)")
        let files = try writtenFiles(in: folder)
        #expect(files["fixtures/echo-keyed/001.json"]?.contains("\"x-secret\": \"***\"") == true)
        #expect(files["fixtures/echo-bearer/001.json"]?.contains("\"authorization\": \"Bearer ***\"") == true)
        #expect(files["fixtures/echo-basic/001.json"]?.contains("\"authorization\": \"Basic ***\"") == true)
        expectNoSecret(in: run.stdout, "stdout")
        expectNoSecret(in: run.stderr, "stderr")
        for (name, text) in files { expectNoSecret(in: text, name) }
        // Sent: Basic auth and OAuth2 pass only with the env file's `s3cret` (everything landed),
        // and the echoed bearer header is exactly the file's token, hidden (its line break dropped).
        #expect(files["out/all.ndjson"]?.contains("\"kId\":\"GET\"") == true, "\(files["out/all.ndjson"] ?? "")")
    }

    @Test(arguments: [
        ("missing-path", "GET /nothing/***?tag=***: page 1: status 404"),
        ("missing-records", "data.items"),
        ("refused", "OAuth2 token request: status 401"),
        ("bad-param", "'tag': '***' does not match the pattern [a-z]+"),
    ])
    func aFailedRequestPrintsNoSecret(run name: String, reason: String) async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let pipeline = try folder.write("pipeline.yaml", Self.pipeline)
        let run = try await ReformBinary.run(
            ["run", pipeline, "--live", "--run", name, "--stats", "json", "--dead-letter", folder.path + "/dead.ndjson"],
            environment: Self.environment.merging(["TEST_URL": server.url]) { a, _ in a }, in: folder.path)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("reform: error: manager '\(name)'"), "\(run.stderr)")
        #expect(run.stderr.contains(reason), "\(run.stderr)")
        expectNoSecret(in: run.stdout, "stdout")
        expectNoSecret(in: run.stderr, "stderr")
        for (file, text) in try writtenFiles(in: folder) { expectNoSecret(in: text, file) }
    }
}
