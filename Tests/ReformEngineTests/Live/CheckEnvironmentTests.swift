import Foundation
import ReformTestSupport
import Testing

/// `reform validate --check-env` against the real server: each service's `${…}`s, its base URL and
/// its credentials, checked with one request each and no records fetched.
@Suite(.timeLimit(.minutes(10))) struct CheckEnvironmentTests {
    static let pipeline = """
        reform: 1
        services:
          basic:
            base_url: "${TEST_URL}"
            auth: { basic: { user: reform, password: "${BASIC_PASSWORD}" } }
          keyed:
            base_url: "${TEST_URL}"
            auth: { api_key: { header: X-API-Key, value: "${API_KEY}" } }
          oauth:
            base_url: "${TEST_URL}"
            auth: { oauth2: { token_url: /oauth/token, grant: client_credentials, client_id: reform, client_secret: "${CLIENT_SECRET}" } }
          gone:
            base_url: http://127.0.0.1:9
        managers:
          a: { service: basic, path: /auth/basic, records: items }
          b: { service: keyed, path: /auth/key, records: items }
          c: { service: oauth, path: /oauth/items, records: items }
          d: { service: gone, path: /x, records: items }
        runs:
          default: { managers: [a, b, c], output: { format: ndjson } }
        """

    static let paths = ["--check-path", "basic=/auth/basic", "--check-path", "keyed=/auth/key", "--check-path", "oauth=/oauth/items"]

    @Test func eachServiceIsReachedWithItsCredentialsAndNoRecordsAreFetched() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let path = try folder.write("p.yaml", Self.pipeline)
        let environment = ["TEST_URL": server.url, "BASIC_PASSWORD": "s3cret", "API_KEY": "k-123", "CLIENT_SECRET": "s3cret"]
        let result = try await ReformBinary.run(["validate", path, "--check-env"] + Self.paths, environment: environment)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(result.stdout)\(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("  ok: service 'basic' (\(server.url)/auth/basic): answered 200 in ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  ok: service 'keyed' (\(server.url)/auth/key): answered 200 in ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  ok: service 'oauth' (\(server.url)/oauth/items): answered 200 in ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  FAILED: service 'gone' (http://127.0.0.1:9): no answer: connection refused") }, "\(lines)")
        // The one unreachable service fails the check: exit 1, the pipeline itself valid.
        #expect(result.status == 1)
        #expect(try await server.requests(path: "/auth/basic").count == 1)
        #expect(try await server.requests(path: "/oauth/token").count == 1)
        #expect(!result.stdout.contains("s3cret") && !result.stdout.contains("k-123"))
    }

    @Test func unsetVariablesAndRefusedCredentialsAreReportedWithoutSecrets() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let path = try folder.write("p.yaml", Self.pipeline)
        // BASIC_PASSWORD wrong, API_KEY unset, CLIENT_SECRET wrong.
        let environment = ["TEST_URL": server.url, "BASIC_PASSWORD": "wrong-password", "CLIENT_SECRET": "wrong-secret"]
        let result = try await ReformBinary.run(["validate", path, "--check-env"] + Self.paths, environment: environment)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            lines.contains {
                $0.hasPrefix("  FAILED: service 'basic' (\(server.url)/auth/basic): answered 401 in ")
                    && $0.hasSuffix(", its credentials refused")
            },
            "\(lines)")
        #expect(
            lines.contains { $0.hasPrefix("  FAILED: service 'keyed'") && $0.contains("not sent: ") && $0.contains("API_KEY") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  FAILED: service 'oauth'") && $0.contains("not sent: ") }, "\(lines)")
        #expect(!result.stdout.contains("wrong-password") && !result.stdout.contains("wrong-secret"), "\(result.stdout)")
        // A --check-path naming no service is an error of its own.
        let typo = try await ReformBinary.run(
            ["validate", path, "--check-env", "--check-path", "basics=/auth/basic"], environment: environment)
        #expect(typo.status == 1)
        #expect(
            typo.stderr.contains(
                "--check-path names service 'basics', which the pipeline does not have (it has: basic, keyed, oauth, gone)"))
    }
}
