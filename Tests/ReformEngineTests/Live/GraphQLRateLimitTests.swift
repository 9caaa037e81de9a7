import Foundation
import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// GraphQL rate limits as such APIs report them: in the body. A `RATE_LIMITED` error (status
/// 200, no headers) is waited out and the page asked again, and `graphql.rate_limit` reads
/// GitHub's `rateLimit { remaining resetAt }` so the requests wait for the reset before one is
/// refused. Against the test server's `/graphql` budget.
@Suite(.timeLimit(.minutes(10))) struct GraphQLRateLimitTests {
    /// A pipeline paging the test server's 25 issues 5 at a time through `/graphql` with a budget
    /// of `budget` requests per window (`window`, the server's query: `window: 60, refusals: 1`
    /// ends a window at its first refusal); `rateLimit` adds the selection and `extra` lines to
    /// `graphql:`.
    func pipeline(_ server: TestServer, budget: Int, window: String, rateLimit: Bool, extra: String = "") throws -> Pipeline {
        let selection = rateLimit ? "rateLimit { limit remaining resetAt } " : ""
        return try server.pipeline(
            service("retry: { attempts: 3, backoff: constant, base: 150ms, max: 5s }")
                + """

                managers:
                  issues:
                    service: api
                    path: /graphql
                    params: { budget: \(budget), \(window), key: "\(UUID().uuidString)", total: 25 }
                    graphql:
                      query: "query($first: Int!, $after: String) { \(selection)repository(owner: \\"o\\", name: \\"r\\") { issues(first: $first, after: $after) { nodes { number } pageInfo { endCursor hasNextPage } } } }"
                      variables: { first: 5 }
                      page_info: data.repository.issues.pageInfo
                \(extra)
                    records: data.repository.issues.nodes
                runs:
                  default: { managers: [issues], output: { format: ndjson, path: /dev/null } }
                """)
    }

    func run(_ pipeline: Pipeline, server: TestServer, clock: (any RunClock)? = nil) async throws -> (RunSummary, [ServiceEvent]) {
        let events = EventLog()
        var options = RunOptions()
        if let clock { options.clock = clock }
        options.mode = .live
        options.environment = ["TEST_URL": server.url]
        options.onEvent = { events.add($0) }
        let summary = try await Runner(pipeline: pipeline, options: options).run()
        return (summary, events.all)
    }

    @Test func aRateLimitedErrorIsWaitedOutAndThePageAskedAgain() async throws {
        let server = try TestServer()
        // Two requests a window, and a window ends at its first refusal: pages 3 and 5 are refused
        // once each, waited for (on a virtual clock: the backoff, as the body says no reset) and asked again.
        let clock = VirtualClock()
        let limited = try pipeline(server, budget: 2, window: "window: 60, refusals: 1", rateLimit: false)
        let (summary, events) = try await run(limited, server: server, clock: clock)
        #expect(summary.recordsIn == 25)
        let log = try await server.requests(path: "/graphql")
        #expect(log.count == 7, "5 pages, 2 of them asked twice: \(log.map { $0["seq"] ?? .null })")
        // The retry's backoff (constant 150 ms, half of it jittered), a moment past it.
        #expect(clock.sleeps.count == 2 && clock.sleeps.allSatisfy { (0.125...0.2).contains($0) }, "\(clock.sleeps)")
        #expect(events.contains { if case .rateLimited = $0 { true } else { false } })
    }

    @Test func theBodysRateLimitHoldsTheRequestsBackSoNoneIsRefused() async throws {
        let server = try TestServer()
        let extra =
            "      rate_limit: { remaining: data.rateLimit.remaining, reset_at: data.rateLimit.resetAt, limit: data.rateLimit.limit }"
        // One request a window of 0.2 s: every answer says none is left until the window's end,
        // and the next request waits for it (on the real clock, which the server's windows follow).
        let (summary, _) = try await run(
            try pipeline(server, budget: 1, window: "window: 0.2", rateLimit: true, extra: extra), server: server)
        #expect(summary.recordsIn == 25)
        let sent = try await server.requests(path: "/graphql").count
        #expect(sent == 5, "each page asked once: the requests waited for the reset instead (\(sent) requests)")
        // (Whether a wait was announced depends on the machine's speed: a request that comes after the
        // window's end has none to wait for. What holds either way is that none was refused.)
    }

    @Test func rateLimitNeedsRemainingAndTakesPaths() throws {
        for (yaml, message) in [
            ("rate_limit: { reset_at: data.rateLimit.resetAt }", "needs 'remaining'"),
            ("rate_limit: { remaining: data.rateLimit.remaining, reset: x }", "'reset'"),
        ] {
            let diagnostics = try loadDiagnostics(
                service()
                    + """

                    managers:
                      issues:
                        service: api
                        graphql:
                          query: "{ viewer { login } }"
                          \(yaml)
                    runs:
                      default: { managers: [issues] }
                    """)
            #expect(diagnostics.contains { $0.contains(message) }, "\(yaml): \(diagnostics)")
        }
    }
}
