import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// A manager's time budget (`budget.max_time`) is kept by the run's clock, so the waits a run
/// makes — retries, `Retry-After`, rate limits — count against it, and a test needs no sleep.
@Suite(.timeLimit(.minutes(10))) struct BudgetTimeTests {
    static let pipeline = """
        reform: 1
        services:
          api: { base_url: "http://api.test", retry: { attempts: 3, max: 30s } }
        managers:
          items:
            service: api
            path: /items
            params: { per_page: 2 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
            budget: { max_time: 5s }
        runs:
          default: { managers: [items], output: { format: ndjson, path: out/items.ndjson } }
        """

    /// Runs the pipeline on a virtual clock against two pages, the second answered first with
    /// a 503 asking to wait `retryAfter` seconds.
    static func run(retryAfter: String, clock: VirtualClock) async throws(RunError) -> RunSummary {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", pipeline)
        let transport = ScriptedTransport()
        transport.on("/items", query: ["page": "1"], .json(#"[{"id": 1}, {"id": 2}]"#))
        transport.on("/items", query: ["page": "2"], .json(#"{"message": "busy"}"#, status: 503, headers: [("Retry-After", retryAfter)]))
        transport.on("/items", query: ["page": "2"], .json(#"[{"id": 3}]"#))
        var options = RunOptions()
        options.clock = clock
        return try await harness.run("pipeline.yaml", options: options, transport: transport)
    }

    @Test func aRetryWaitPastTheTimeBudgetStopsTheManager() async throws {
        let clock = VirtualClock()
        do {
            _ = try await Self.run(retryAfter: "7", clock: clock)
            Issue.record("the run went on past its time budget")
        } catch {
            #expect(error.managerError?.kind == .budgetExceeded)
            #expect(error.message.contains("its budget of 5.0 s (budget.max_time) is spent after 2 calls"), "\(error.message)")
        }
        #expect(clock.sleeps == [7])
    }

    @Test func waitsWithinTheTimeBudgetLetTheManagerFinish() async throws {
        let clock = VirtualClock()
        let summary = try await Self.run(retryAfter: "3", clock: clock)
        #expect(summary.recordsIn == 3)
        #expect(clock.sleeps == [3])
    }
}
