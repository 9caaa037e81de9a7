import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// Defects a review of the incremental and fan-out code found, each reproduced here.
@Suite(.timeLimit(.minutes(10))) struct IncrementalEdgeCaseTests {
    static func twoManagers(output: String = "{ format: ndjson, path: out/all.ndjson }") -> String {
        """
        reform: 1
        name: two
        services:
          gh: { base_url: "http://gh.test" }
        managers:
          a:
            service: gh
            path: /a
            params: { per_page: 1 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
            incremental: { cursor: t, param: since, format: number, key: id, checkpoint: 1 }
          b:
            service: gh
            path: /b
            params: { per_page: 1 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
            incremental: { cursor: t, param: since, format: number, key: id, checkpoint: 1 }
        runs:
          default: { managers: [a, b], output: \(output) }
        """
    }

    @Test func aManagerFinishedBeforeTheCheckpointIsNotFetchedAgainWhenTheRunResumes() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.twoManagers())
        let failing = ScriptedTransport()
        failing.on("/a", query: ["page": "1"], .json(#"[{"id": 1, "t": 1}]"#))
        failing.on("/a", query: ["page": "2"], .json("[]"))
        failing.on("/b", query: ["page": "1"], .json(#"[{"id": 2, "t": 2}]"#))
        failing.on("/b", query: ["page": "2"], .json(#"{"message": "down"}"#, status: 503))
        await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", transport: failing) }
        let resumed = ScriptedTransport()
        resumed.on("/b", query: ["page": "2"], .json("[]"))
        _ = try await harness.run("pipeline.yaml", transport: resumed)
        #expect(resumed.requestKeys == ["GET /b?page=2&per_page=1"], "a is done; b resumes at its failed page")
        #expect(try harness.lines("out/all.ndjson") == [#"{"id":1,"t":1}"#, #"{"id":2,"t":2}"#])
    }

    @Test func resetAfterAStoppedRunForgetsItsCheckpointToo() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.twoManagers())
        let failing = ScriptedTransport()
        failing.on("/a", query: ["page": "1"], .json(#"{"message": "down"}"#, status: 503))
        await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", transport: failing) }
        var store = try StateStore.load(path: harness.path("out/.two.reform-state.json"))
        #expect(store.document["running"] != nil)
        store.reset(manager: "a")
        #expect(store.document["running"] == nil)
    }

    @Test func recordsWithoutACursorAreWarnedAbout() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.twoManagers())
        let transport = ScriptedTransport()
        transport.on("/a", query: ["page": "1"], .json(#"[{"id": 1, "updated": 1}]"#))
        transport.on("/a", query: ["page": "2"], .json("[]"))
        transport.on("/b", query: ["page": "1"], .json(#"[{"id": 2, "t": 2}]"#))
        transport.on("/b", query: ["page": "2"], .json("[]"))
        let summary = try await harness.run("pipeline.yaml", transport: transport)
        #expect(summary.warnings.count == 1)
        #expect(summary.warnings.first?.contains("1 record of manager 'a' had no number value at 't'") == true)
    }

    @Test func anOutputFileGivenOnTheCommandLineMustBeAppendableToo() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.twoManagers(output: "{ format: ndjson }"))
        var options = RunOptions()
        options.outputPath = harness.path("all.json")
        options.format = .json
        do {
            _ = try await harness.run("pipeline.yaml", options: options, transport: ScriptedTransport())
            Issue.record("a json output was appended to")
        } catch {
            #expect(error.message.contains("only ndjson and csv allow"))
        }
    }

    @Test func aCSVOfRawRecordsIsNotAppendedTo() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.twoManagers(output: "{ format: csv, path: out/all.csv }"))
        await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", transport: ScriptedTransport()) }
    }

    @Test func aRunToStandardOutputKeepsItsBookmarks() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.twoManagers(output: "{ format: ndjson, path: /dev/null }"))
        let first = ScriptedTransport()
        first.on("/a", query: ["page": "1"], .json(#"[{"id": 1, "t": 5}]"#))
        first.on("/a", query: ["page": "2"], .json("[]"))
        first.on("/b", query: ["page": "1"], .json("[]"))
        var options = RunOptions()
        options.statePath = harness.path("state.json")
        _ = try await harness.run("pipeline.yaml", options: options, transport: first)
        let second = ScriptedTransport()
        second.on("/a", query: ["page": "1", "since": "5"], .json("[]"))
        second.on("/b", query: ["page": "1"], .json("[]"))
        _ = try await harness.run("pipeline.yaml", options: options, transport: second)
        #expect(second.requestKeys.contains("GET /a?page=1&per_page=1&since=5"), "\(second.requestKeys)")
    }

    @Test func eachRunAndShardKeepsAStateOfItsOwn() throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.twoManagers())
        let pipeline = try harness.load("pipeline.yaml")
        var options = RunOptions()
        options.outputFolder = harness.folder
        #expect(StateStore.path(of: pipeline, options: options).hasSuffix("out/.two.reform-state.json"))
        options.shard = (1, 4)
        #expect(StateStore.path(of: pipeline, options: options).hasSuffix("out/.two.shard-1-of-4.reform-state.json"))
    }

    @Test(arguments: [
        (
            """
              repos:
                path: /r
                incremental: { cursor: t, param: since }
              issues:
                path: "/i/{r}"
                params: { r: { required: true } }
                for_each: { manager: repos, params: { r: name } }
            """,
            "is incremental, but the partitions of 'issues' come from its records"
        ),
        (
            """
              issues:
                path: "/i/{r}"
                params: { r: { required: true } }
                for_each: { param: r, values: [a], on_error: skip }
                incremental: { cursor: t, param: since }
            """,
            "is incremental with 'on_error: skip'"
        ),
    ])
    func fanOutsThatCannotBeIncrementalAreLoadErrors(managers: String, message: String) throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", "reform: 1\nmanagers:\n\(managers)\n")
        do {
            _ = try harness.load("pipeline.yaml")
            Issue.record("loaded")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func pagesLandedBeforeAResumeCountAgainstThePageBudget() async throws {
        let harness = try RunHarness()
        let yaml = Self.twoManagers().replacing("runs:\n  default: { managers: [a, b]", with: "runs:\n  default: { managers: [a]")
            .replacing("    path: /a\n", with: "    path: /a\n    budget: { max_pages: 3 }\n")
        try harness.write("pipeline.yaml", yaml)
        let failing = ScriptedTransport()
        failing.on("/a", query: ["page": "1"], .json(#"[{"id": 1, "t": 1}]"#))
        failing.on("/a", query: ["page": "2"], .json(#"{"message": "down"}"#, status: 503))
        await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", transport: failing) }
        let resumed = ScriptedTransport()
        for page in 2...5 { resumed.on("/a", query: ["page": "\(page)"], .json(#"[{"id": \#(page), "t": \#(page)}]"#)) }
        do {
            _ = try await harness.run("pipeline.yaml", transport: resumed)
            Issue.record("the resumed run went past the budget")
        } catch {
            #expect(error.managerError?.kind == .budgetExceeded)
            #expect(error.message.contains("page 4 goes past its budget of 3 pages"), "\(error.message)")
        }
        #expect(
            resumed.requestKeys == ["GET /a?page=2&per_page=1", "GET /a?page=3&per_page=1", "GET /a?page=4&per_page=1"],
            "the page before the resume counts: page 4 is the fourth")
    }
}
