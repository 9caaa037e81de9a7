import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// The loopback server's GitHub-like API running out of its rate limit, through the command line:
/// the run waits for the reset and says so, or fails saying when the limit resets.
@Suite(.timeLimit(.minutes(10))) struct RateLimitedServerTests {
    static func pipeline(retryMax: String) -> String {
        """
        reform: 1
        name: limited
        services:
          github: { base_url: "${TEST_URL}/gh", retry: { attempts: 2, max: \(retryMax) } }
        managers:
          issues:
            service: github
            path: /repos/acme/widgets/issues
            params: { state: all, per_page: 2 }
            paging: { policy: link }
        runs:
          default: { managers: [issues], output: { format: ndjson, path: out/issues.ndjson } }
        """
    }

    @Test(arguments: ["github", "ietf"])
    func aSpentLimitIsWaitedForWithAMessageAndEveryPageLands(style: String) async throws {
        let server = try TestServer()
        try await server.post("/gh/_admin/config", #"{"rate_limit": 3, "rate_window": 1.5, "rate_style": "\#(style)"}"#)
        let folder = try TemporaryFolder()
        _ = try folder.write("pipeline.yaml", Self.pipeline(retryMax: "5s"))
        let outcome = try await ReformBinary.run(
            ["run", "pipeline.yaml", "--live"], environment: ["TEST_URL": server.url], in: folder.path)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try folder.read("out/issues.ndjson").split(separator: "\n").count == 12)
        #expect(outcome.stderr.contains("rate limit reached; waiting"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("credentials"))
    }

    @Test func aLimitThatResetsTooLateFailsSayingWhen() async throws {
        let server = try TestServer()
        try await server.post("/gh/_admin/config", #"{"rate_limit": 2, "rate_window": 30}"#)
        let folder = try TemporaryFolder()
        _ = try folder.write("pipeline.yaml", Self.pipeline(retryMax: "2s"))
        let outcome = try await ReformBinary.run(
            ["run", "pipeline.yaml", "--live"], environment: ["TEST_URL": server.url], in: folder.path)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("rate limited: service 'github' takes no more requests until"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("raise retry.max"))
        #expect(!folder.exists("out/issues.ndjson"), "a run that is not incremental writes nothing when it fails")
    }
}
