import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// Incremental managers: the next run asks only for what is newer than the saved bookmark,
/// appends it, drops what the lookback window brings back twice, and resumes from a checkpoint.
@Suite(.timeLimit(.minutes(10))) struct IncrementalTests {
    static func pipeline(format: String = "ndjson", checkpoint: Int = 10, extra: String = "") -> String {
        """
        reform: 1
        name: issues
        services:
          gh: { base_url: "http://gh.test" }
        managers:
          issues:
            service: gh
            path: /issues
            params: { per_page: 2 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
            incremental: { cursor: updated_at, param: since, key: id, lookback: 1h, checkpoint: \(checkpoint) }
        \(extra)
        runs:
          default:
            managers: [issues]
            outputs:
              - { format: \(format), path: out/issues.\(format) }
        """
    }

    static func issue(_ id: Int, _ time: String) -> String { #"{"id": \#(id), "updated_at": "2026-01-01T\#(time)Z"}"# }
    static func line(_ id: Int, _ time: String) -> String { #"{"id":\#(id),"updated_at":"2026-01-01T\#(time)Z"}"# }

    /// The first run: three issues on two pages, no `since`.
    static func firstRun(_ transport: ScriptedTransport) {
        transport.on("/issues", query: ["page": "1"], .json("[\(issue(1, "10:00:00")), \(issue(2, "11:00:00"))]"))
        transport.on("/issues", query: ["page": "2"], .json("[\(issue(3, "12:00:00"))]"))
    }

    @Test func theNextRunAsksFromTheBookmarkLessTheLookbackAndAppendsOnlyWhatIsNew() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline())
        let first = ScriptedTransport()
        Self.firstRun(first)
        _ = try await harness.run("pipeline.yaml", transport: first)
        #expect(first.requestKeys == ["GET /issues?page=1&per_page=2", "GET /issues?page=2&per_page=2"])
        #expect(try harness.lines("out/issues.ndjson") == [Self.line(1, "10:00:00"), Self.line(2, "11:00:00"), Self.line(3, "12:00:00")])
        #expect(harness.exists("out/.issues.reform-state.json"))

        // Issue 3 comes back unchanged (the lookback window), issue 2 changed, issue 4 is new.
        let second = ScriptedTransport()
        second.on(
            "/issues", query: ["page": "1", "since": "2026-01-01T11:00:00Z"],
            .json("[\(Self.issue(3, "12:00:00")), \(Self.issue(2, "12:30:00"))]"))
        second.on("/issues", query: ["page": "2", "since": "2026-01-01T11:00:00Z"], .json("[\(Self.issue(4, "13:00:00"))]"))
        let summary = try await harness.run("pipeline.yaml", transport: second)
        #expect(second.requestKeys.allSatisfy { $0.contains("since=2026-01-01T11%3A00%3A00Z") })
        #expect(summary.recordsIn == 3)
        #expect(
            try harness.lines("out/issues.ndjson") == [
                Self.line(1, "10:00:00"), Self.line(2, "11:00:00"), Self.line(3, "12:00:00"), Self.line(2, "12:30:00"),
                Self.line(4, "13:00:00"),
            ])

        // Nothing new: the output stays byte for byte as it was.
        let before = try harness.read("out/issues.ndjson")
        let third = ScriptedTransport()
        third.on("/issues", query: ["page": "1", "since": "2026-01-01T12:00:00Z"], .json("[\(Self.issue(4, "13:00:00"))]"))
        _ = try await harness.run("pipeline.yaml", transport: third)
        #expect(try harness.read("out/issues.ndjson") == before)
    }

    @Test func aFullRefreshIgnoresTheStateAndReplacesTheOutput() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline())
        let first = ScriptedTransport()
        Self.firstRun(first)
        _ = try await harness.run("pipeline.yaml", transport: first)
        let again = ScriptedTransport()
        Self.firstRun(again)
        var options = RunOptions()
        options.fullRefresh = true
        _ = try await harness.run("pipeline.yaml", options: options, transport: again)
        #expect(!again.requestKeys.contains { $0.contains("since") })
        #expect(try harness.lines("out/issues.ndjson").count == 3, "replaced, not appended")
    }

    @Test func anOutputTheStateDoesNotDescribeIsFetchedAgainInFull() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline())
        let first = ScriptedTransport()
        Self.firstRun(first)
        _ = try await harness.run("pipeline.yaml", transport: first)
        // Someone replaced the output (a new file): appending to it would leave it incomplete.
        try harness.write("out/issues.ndjson", Self.line(9, "09:00:00") + "\n")
        let again = ScriptedTransport()
        Self.firstRun(again)
        _ = try await harness.run("pipeline.yaml", transport: again)
        #expect(!again.requestKeys.contains { $0.contains("since") })
        #expect(try harness.lines("out/issues.ndjson").count == 3)
    }

    @Test func aRunThatFailsMidwayKeepsWhatLandedAndTheNextRunResumesThereWithTheSameOutput() async throws {
        // The uninterrupted run: five pages.
        let pages = (1...5).map { page in "[\(Self.issue(page * 2 - 1, "0\(page):00:00")), \(Self.issue(page * 2, "0\(page):30:00"))]" }
        let whole = try RunHarness()
        try whole.write("pipeline.yaml", Self.pipeline(checkpoint: 1))
        let straight = ScriptedTransport()
        for (i, body) in pages.enumerated() { straight.on("/issues", query: ["page": "\(i + 1)"], .json(body)) }
        straight.on("/issues", query: ["page": "6"], .json("[]"))
        _ = try await whole.run("pipeline.yaml", transport: straight)

        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(checkpoint: 1))
        let failing = ScriptedTransport()
        for (i, body) in pages.prefix(3).enumerated() { failing.on("/issues", query: ["page": "\(i + 1)"], .json(body)) }
        failing.on("/issues", query: ["page": "4"], .json(#"{"message": "unavailable"}"#, status: 503))
        do {
            _ = try await harness.run("pipeline.yaml", transport: failing)
            Issue.record("the run succeeded")
        } catch {
            #expect(error.message.contains("the next run resumes from there"))
        }
        let resumed = ScriptedTransport()
        for (i, body) in pages.enumerated().dropFirst(3) { resumed.on("/issues", query: ["page": "\(i + 1)"], .json(body)) }
        resumed.on("/issues", query: ["page": "6"], .json("[]"))
        _ = try await harness.run("pipeline.yaml", transport: resumed)
        #expect(
            resumed.requestKeys == ["GET /issues?page=4&per_page=2", "GET /issues?page=5&per_page=2", "GET /issues?page=6&per_page=2"],
            "resumes at the page that failed")
        #expect(try harness.read("out/issues.ndjson") == whole.read("out/issues.ndjson"))
    }

    @Test func anOutputThatCannotBeAppendedToIsRefused() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(format: "json"))
        await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", transport: ScriptedTransport()) }
        do { _ = try await harness.run("pipeline.yaml", transport: ScriptedTransport()) } catch {
            #expect(error.message.contains("only ndjson and csv allow"))
        }
    }

    @Test func csvOutputsGetTheirHeaderOnce() async throws {
        let harness = try RunHarness()
        // A keyed chain: an appended csv keeps the columns its header names.
        let keyed = Self.pipeline(format: "csv").replacing(
            "runs:",
            with: "reformers:\n  issue:\n    keys: { id: id, updated_at: updated_at }\n    map: { id: id, updated_at: updated_at }\nruns:"
        )
        .replacing("- { format: csv", with: "- { reform: [issue], format: csv")
        try harness.write("pipeline.yaml", keyed)
        let first = ScriptedTransport()
        Self.firstRun(first)
        _ = try await harness.run("pipeline.yaml", transport: first)
        let second = ScriptedTransport()
        second.on("/issues", query: ["page": "1"], .json("[\(Self.issue(4, "13:00:00"))]"))
        _ = try await harness.run("pipeline.yaml", transport: second)
        #expect(
            try harness.lines("out/issues.csv") == [
                "id,updated_at", "1,2026-01-01T10:00:00Z", "2,2026-01-01T11:00:00Z", "3,2026-01-01T12:00:00Z", "4,2026-01-01T13:00:00Z",
            ])
    }

    @Test func theStateCanBeReadAndReset() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline())
        let first = ScriptedTransport()
        Self.firstRun(first)
        _ = try await harness.run("pipeline.yaml", transport: first)
        var store = try StateStore.load(path: harness.path("out/.issues.reform-state.json"))
        #expect(store.bookmarks(of: "issues") == ["": .string("2026-01-01T12:00:00Z")])
        store.reset(manager: "issues")
        try store.save()
        #expect(try StateStore.load(path: harness.path("out/.issues.reform-state.json")).bookmarks(of: "issues").isEmpty)
    }
}
