import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// A fan-out holds its partitions in memory, so it has a limit (`for_each.max_partitions`,
/// 100,000 by default): a parent whose records would make more fails the run before any child
/// request, a list or range that declares more is a load error, and a `--param` list that gives
/// more is refused (reliability audit r2, item 15).
@Suite(.timeLimit(.minutes(10))) struct PartitionLimitTests {
    static let repos = """
          repos:
            service: gh
            path: /orgs/acme/repos
            paging: { policy: none }
        """

    static func parentPipeline(limit: String) -> String {
        PartitionTests.pipeline(forEach: "manager: repos, params: { repo: name }\(limit)", extraManagers: repos)
    }

    static func transport(names: [String]) -> ScriptedTransport {
        let transport = PartitionTests.script()
        let records = names.map { #"{"name": "\#($0)"}"# }.joined(separator: ", ")
        transport.on("/orgs/acme/repos", .json("[\(records)]"))
        return transport
    }

    @Test func aParentWhoseRecordsMakeMorePartitionsThanTheLimitFailsBeforeAnyChildRequest() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.parentPipeline(limit: ", max_partitions: 3"))
        let transport = Self.transport(names: ["widgets", "gadgets", "gizmos", "doodads", "gimcracks"])
        do {
            _ = try await harness.run("pipeline.yaml", transport: transport)
            Issue.record("the run succeeded")
        } catch {
            #expect(error.code == .partitionLimit)
            #expect(error.manager == "issues")
            #expect(error.message.contains("more than 3 partitions"), "\(error.message)")
            #expect(error.message.contains("'repos'") && error.message.contains("max_partitions"), "\(error.message)")
            #expect(error.message.contains("pipeline.yaml:"), "names where for_each is declared: \(error.message)")
        }
        #expect(transport.requestKeys == ["GET /orgs/acme/repos"], "no child request was sent")
        #expect(!harness.exists("out/issues.ndjson"))
    }

    @Test func repeatedParentRecordsMakeOnePartitionAndDoNotCountTwice() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.parentPipeline(limit: ", max_partitions: 3"))
        let transport = Self.transport(names: ["widgets", "gadgets", "widgets", "gizmos", "gadgets"])
        let summary = try await harness.run("pipeline.yaml", transport: transport)
        #expect(try harness.lines("out/issues.ndjson") == PartitionTests.expected)
        #expect(summary.paging.first { $0.manager == "issues" }?.partitions == 3)
    }

    @Test func theLimitIsOneHundredThousandUnlessDeclared() throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.parentPipeline(limit: ""))
        let pipeline = try harness.load("pipeline.yaml")
        #expect(pipeline.managers.first { $0.ref.name == "issues" }?.partitions?.maxPartitions == 100_000)
        try harness.write(
            "raised.yaml", PartitionTests.pipeline(forEach: "param: repo, range: { from: 1, to: 150000 }, max_partitions: 200000"))
        #expect(try harness.load("raised.yaml").managers.first { $0.ref.name == "issues" }?.partitions?.maxPartitions == 200_000)
    }

    @Test func aRunsParamListLongerThanTheLimitIsRefused() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", PartitionTests.pipeline(forEach: "param: repo, max_partitions: 2"))
        var options = RunOptions()
        options.params = ["repo": .string("widgets,gadgets,gizmos")]
        let transport = PartitionTests.script()
        do {
            _ = try await harness.run("pipeline.yaml", options: options, transport: transport)
            Issue.record("the run succeeded")
        } catch {
            #expect(error.code == .partitionLimit)
            #expect(error.message.contains("3 values") && error.message.contains("max_partitions: 2"), "\(error.message)")
        }
        #expect(transport.requestKeys.isEmpty)
    }

    @Test(arguments: [
        ("param: repo, range: { from: 1, to: 10 }, max_partitions: 5", "makes 10 partitions; at most 5"),
        ("param: repo, values: [a, b, c], max_partitions: 2", "has 3 entries; at most 2"),
        ("param: repo, range: { from: 0, to: 9223372036854775807 }", "at most 100000"),
        ("param: repo, range: { from: 1700-01-01, to: 2026-01-01 }", "partitions; at most 100000"),
        ("param: repo, range: { from: 1, to: 2 }, max_partitions: 0", "max_partitions"),
        ("manager: repos, params: { repo: name }, max_partitions: 20000000", "max_partitions"),
    ])
    func aDeclaredListOrRangeBeyondTheLimitIsALocatedLoadError(forEach: String, message: String) throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", PartitionTests.pipeline(forEach: forEach, extraManagers: Self.repos))
        do {
            _ = try harness.load("pipeline.yaml")
            Issue.record("loaded")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(error.description.contains("pipeline.yaml:"), "located: \(error.description)")
        }
    }
}
