import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// Managers that run once per partition (`for_each`): lists, `--param` lists, ranges and parent
/// records, in partition order whatever the concurrency.
@Suite(.timeLimit(.minutes(10))) struct PartitionTests {
    static func pipeline(forEach: String, concurrency: Int = 1, onError: String = "fail", extraManagers: String = "") -> String {
        """
        reform: 1
        name: fan
        services:
          gh: { base_url: "http://gh.test" }
        managers:
        \(extraManagers)
          issues:
            service: gh
            path: /repos/acme/{repo}/issues
            params: { repo: { type: string }, per_page: 2 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
            for_each: { \(forEach), concurrency: \(concurrency), on_error: \(onError) }
        reformers:
          issue:
            keys: { repo: kIssueRepo, number: kIssueNumber }
            from:
              issues: { repo: _partition.repo, number: number }
        runs:
          default:
            managers: [issues]
            outputs:
              - { reform: [issue], format: ndjson, path: out/issues.ndjson }
        """
    }

    /// Two pages for `widgets`, one for `gadgets`, one (failing when `failing`) for `gizmos`.
    static func script(failing: Bool = false) -> ScriptedTransport {
        let transport = ScriptedTransport()
        transport.on("/repos/acme/widgets/issues", query: ["page": "1"], .json(#"[{"number": 1}, {"number": 2}]"#))
        transport.on("/repos/acme/widgets/issues", query: ["page": "2"], .json(#"[{"number": 3}]"#))
        transport.on("/repos/acme/gadgets/issues", query: ["page": "1"], .json(#"[{"number": 7}]"#))
        if failing {
            transport.on("/repos/acme/gizmos/issues", query: ["page": "1"], .json(#"{"message": "Server Error"}"#, status: 500))
        } else {
            transport.on("/repos/acme/gizmos/issues", query: ["page": "1"], .json("[]"))
        }
        return transport
    }

    static let expected = [
        #"{"kIssueRepo":"widgets","kIssueNumber":1}"#, #"{"kIssueRepo":"widgets","kIssueNumber":2}"#,
        #"{"kIssueRepo":"widgets","kIssueNumber":3}"#, #"{"kIssueRepo":"gadgets","kIssueNumber":7}"#,
    ]

    @Test func aListRunsOnePartitionPerValueInOrderAndMappingsReadThePartition() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(forEach: "param: repo, values: [widgets, gadgets, gizmos]"))
        let transport = Self.script()
        let summary = try await harness.run("pipeline.yaml", transport: transport)
        #expect(try harness.lines("out/issues.ndjson") == Self.expected)
        #expect(
            transport.requestKeys == [
                "GET /repos/acme/widgets/issues?page=1&per_page=2", "GET /repos/acme/widgets/issues?page=2&per_page=2",
                "GET /repos/acme/gadgets/issues?page=1&per_page=2", "GET /repos/acme/gizmos/issues?page=1&per_page=2",
            ])
        #expect(summary.paging.first?.partitions == 3)
        #expect(summary.paging.first?.pages == 4)
        #expect(summary.stopped.map(\.manager) == ["issues[repo=widgets]", "issues[repo=gadgets]", "issues[repo=gizmos]"])
    }

    @Test(arguments: [1, 2, 8])
    func outputsAreByteIdenticalWhateverTheConcurrency(concurrency: Int) async throws {
        let harness = try RunHarness()
        try harness.write(
            "pipeline.yaml", Self.pipeline(forEach: "param: repo, values: [widgets, gadgets, gizmos]", concurrency: concurrency))
        _ = try await harness.run("pipeline.yaml", transport: Self.script())
        #expect(try harness.read("out/issues.ndjson") == Self.expected.joined(separator: "\n") + "\n")
    }

    @Test func aCommaSeparatedParamReplacesTheDeclaredValues() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(forEach: "param: repo, values: [nothing]"))
        var options = RunOptions()
        options.params = ["repo": .string("gadgets, widgets")]
        _ = try await harness.run("pipeline.yaml", options: options, transport: Self.script())
        #expect(try harness.lines("out/issues.ndjson") == [Self.expected[3]] + Self.expected[0..<3])
    }

    @Test func aParamWithoutValuesNeedsThemFromTheRun() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(forEach: "param: repo"))
        await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", transport: Self.script()) }
        do {
            _ = try await harness.run("pipeline.yaml", transport: Self.script())
        } catch {
            #expect(error.message.contains("--param repo=A,B,C"))
        }
    }

    @Test func aRangeOfDaysRunsOnePartitionPerDay() async throws {
        let harness = try RunHarness()
        try harness.write(
            "pipeline.yaml",
            """
            reform: 1
            services:
              api: { base_url: "http://api.test" }
            managers:
              events:
                service: api
                path: /events
                params: { day: { required: true } }
                for_each: { param: day, range: { from: 2026-02-27, to: 2026-03-02, step: 2d } }
            runs:
              default: { managers: [events], output: { format: ndjson, path: out/events.ndjson } }
            """)
        let transport = ScriptedTransport()
        for day in ["2026-02-27", "2026-03-01"] { transport.on("/events", query: ["day": day], .json(#"[{"day": "\#(day)"}]"#)) }
        _ = try await harness.run("pipeline.yaml", transport: transport)
        #expect(transport.requestKeys == ["GET /events?day=2026-02-27", "GET /events?day=2026-03-01"])
        #expect(
            try harness.lines("out/events.ndjson") == [
                #"{"day":"2026-02-27","_partition":{"day":"2026-02-27"}}"#, #"{"day":"2026-03-01","_partition":{"day":"2026-03-01"}}"#,
            ])
    }

    @Test func aChildRunsOncePerDistinctParentRecordAndAParentOutsideTheRunOnlyFeedsIt() async throws {
        let harness = try RunHarness()
        let repos = """
              repos:
                service: gh
                path: /orgs/acme/repos
                paging: { policy: none }
            """
        try harness.write("pipeline.yaml", Self.pipeline(forEach: "manager: repos, params: { repo: name }", extraManagers: repos))
        let transport = Self.script()
        transport.on(
            "/orgs/acme/repos", .json(#"[{"name": "widgets"}, {"name": "gadgets"}, {"name": "widgets"}, {"id": 9}, {"name": "gizmos"}]"#))
        let summary = try await harness.run("pipeline.yaml", transport: transport)
        #expect(try harness.lines("out/issues.ndjson") == Self.expected)
        #expect(transport.requestKeys.first == "GET /orgs/acme/repos")
        #expect(transport.requestKeys.count == 5, "one request for the parent, one per page of each distinct partition")
        // The parent record without a name makes no partition: it is a dead letter, not lost.
        #expect(summary.rejected == 1)
        let dead = try harness.read("reform-dead-letter.ndjson")
        #expect(dead.contains(#""stage":"partition""#) && dead.contains("has no 'name'"))
    }

    @Test func aFailingPartitionIsSkippedAndReportedWhenThePolicySaysSo() async throws {
        let harness = try RunHarness()
        try harness.write(
            "pipeline.yaml", Self.pipeline(forEach: "param: repo, values: [widgets, gizmos, gadgets]", onError: "skip"))
        let summary = try await harness.run("pipeline.yaml", transport: Self.script(failing: true))
        #expect(try harness.lines("out/issues.ndjson") == Self.expected)
        #expect(summary.failedPartitions.map(\.partition) == ["repo=gizmos"])
        #expect(summary.rejected == 1)
        let dead = try harness.read("reform-dead-letter.ndjson")
        #expect(dead.contains(#""input":"partition 2 (repo=gizmos)""#) && dead.contains("status 500"))
    }

    @Test func aFailingPartitionFailsTheRunByDefaultAndNamesIt() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(forEach: "param: repo, values: [widgets, gizmos, gadgets]"))
        do {
            _ = try await harness.run("pipeline.yaml", transport: Self.script(failing: true))
            Issue.record("the run succeeded")
        } catch {
            #expect(error.message.contains("partition 2 of 3 (repo=gizmos)"))
            #expect(!harness.exists("out/issues.ndjson"))
        }
    }

    @Test(arguments: [
        ("param: nope, values: [a]", "sets parameter 'nope', which manager 'issues' does not declare"),
        ("manager: ghost, params: { repo: name }", "unknown manager 'ghost'"),
        ("manager: issues, params: { repo: name }", "names the manager itself"),
        ("param: repo, range: { from: 5, to: 1 }", "after 'to'"),
        ("param: repo, range: { from: 2026-01-01, to: 7 }", "must both be whole numbers or both be dates"),
        ("param: repo, values: [a], range: { from: 1, to: 2 }", "takes 'values' or 'range', not both"),
    ])
    func mistakesInForEachAreLocatedLoadErrors(forEach: String, message: String) throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(forEach: forEach))
        do {
            _ = try harness.load("pipeline.yaml")
            Issue.record("loaded")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(error.description.contains("pipeline.yaml:1"), "located: \(error.description)")
        }
    }

    @Test func shardsConcatenatedInOrderAreTheWholeRun() async throws {
        var concatenated = ""
        for index in 0..<3 {
            let harness = try RunHarness()
            try harness.write("pipeline.yaml", Self.pipeline(forEach: "param: repo, values: [widgets, gadgets, gizmos]"))
            var options = RunOptions()
            options.shard = (index, 3)
            let transport = Self.script()
            _ = try await harness.run("pipeline.yaml", options: options, transport: transport)
            #expect(transport.requestKeys.count == [2, 1, 1][index], "shard \(index) fetches its own partition only")
            concatenated += (try? harness.read("out/issues.ndjson")) ?? ""
        }
        #expect(concatenated == Self.expected.joined(separator: "\n") + "\n")
    }

    @Test func aListedParentStillMakesEveryShardsPartitions() async throws {
        let repos = """
              repos:
                service: gh
                path: /orgs/acme/repos
                paging: { policy: none }
            """
        let yaml = Self.pipeline(forEach: "manager: repos, params: { repo: name }", extraManagers: repos)
            .replacing("managers: [issues]", with: "managers: [repos, issues]")
        var concatenated = ""
        for index in 0..<2 {
            let harness = try RunHarness()
            try harness.write("pipeline.yaml", yaml.replacing("reform: [issue]", with: "reform: []"))
            var options = RunOptions()
            options.shard = (index, 2)
            let transport = Self.script()
            transport.on("/orgs/acme/repos", .json(#"[{"name": "widgets"}, {"name": "gadgets"}, {"name": "gizmos"}]"#))
            _ = try await harness.run("pipeline.yaml", options: options, transport: transport)
            concatenated += (try? harness.read("out/issues.ndjson")) ?? ""
        }
        let whole = try RunHarness()
        try whole.write("pipeline.yaml", yaml.replacing("reform: [issue]", with: "reform: []"))
        let transport = Self.script()
        transport.on("/orgs/acme/repos", .json(#"[{"name": "widgets"}, {"name": "gadgets"}, {"name": "gizmos"}]"#))
        _ = try await whole.run("pipeline.yaml", transport: transport)
        #expect(concatenated == (try whole.read("out/issues.ndjson")))
        #expect(concatenated.split(separator: "\n").count == 3 + 4, "the parent's records once (shard 0), every issue once")
    }
}
