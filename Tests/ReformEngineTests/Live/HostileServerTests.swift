import Foundation
import ReformTestSupport
import Testing

/// A server that answers with numbers past every range, through the real binary: the run ends
/// with the error a long wait gets, never a crash (reliability audit r2 H1: exit 132).
@Suite(.timeLimit(.minutes(10))) struct HostileServerTests {
    /// A pipeline in a fresh folder whose manager pages `path` (with `params`) on the server.
    static func pipeline(_ server: TestServer, path: String, params: String = "{}", timeout: String = "5s") throws -> String {
        let folder = try TemporaryFolder()
        return try folder.write(
            "p.yaml",
            """
            reform: 1
            services:
              s: { base_url: "\(server.url)", timeout: \(timeout), retry: { attempts: 3, max: 10s, on: [429] } }
            managers:
              m: { service: s, path: \(path), params: \(params), records: items, paging: { policy: page, param: page, start: 1, max_pages: 2 } }
            runs:
              default: { output: { format: ndjson } }
            """)
    }

    /// `/raw` answering `status` with `headers` and a page of one item.
    static func rawParams(_ status: String, _ headers: [String]) -> String {
        let body = #"{"items": [{"id": 1}]}"#
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + headers.map { $0 + "\r\n" }.joined() + "\r\n" + body
        let encoded = Data(response.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "{ bytes: \"\(encoded)\" }"
    }

    @Test(
        "a rate-limit header past every range is a wait longer than retry.max, not a crash",
        arguments: [
            ["X-RateLimit-Limit: 10", "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 99999999999999999999"],
            ["X-RateLimit-Limit: 10", "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 9223372036854775807"],
            ["X-RateLimit-Limit: 10", "X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 1e300"],
            ["RateLimit: \"default\";r=0;t=99999999999999999999"],
            ["RateLimit-Remaining: -9223372036854775808", "RateLimit-Reset: 1e30"],
        ])
    func absurdRateLimitHeaders(headers: [String]) async throws {
        let server = try TestServer()
        let path = try Self.pipeline(server, path: "/raw", params: Self.rawParams("200 OK", headers))
        let result = try await ReformBinary.run(
            ["run", path, "--live"], environment: [:], in: (path as NSString).deletingLastPathComponent)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("(in 9200000000 s), longer than retry.max (10 s); raise retry.max"), "\(result.stderr)")
    }

    @Test func aRetryAfterOf64BitsIsLongerThanRetryMaxNotACrash() async throws {
        let server = try TestServer()
        let path = try Self.pipeline(
            server, path: "/raw", params: Self.rawParams("429 Too Many Requests", ["Retry-After: 9223372036854775807"]))
        let result = try await ReformBinary.run(
            ["run", path, "--live"], environment: [:], in: (path as NSString).deletingLastPathComponent)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("the service asks to wait 9200000000 s (Retry-After), longer than retry.max (10.0 s)"),
            "\(result.stderr)")
    }
}
