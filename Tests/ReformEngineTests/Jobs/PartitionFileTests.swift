import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// A parent → child fan-out's partitions listed once (`Runner.partitions(of:)`, `reform run
/// --list-partitions`) and given to the shards of a job (`--partitions MANAGER=FILE`): the
/// shards do not each fetch the parent level (reliability audit r2, item 22), and their outputs
/// still concatenate to one run's.
@Suite(.timeLimit(.minutes(10))) struct PartitionFileTests {
    static let repos = PartitionLimitTests.repos
    static let names = ["widgets", "gadgets", "gizmos"]

    static func yaml(listed: Bool = false) -> String {
        let yaml = PartitionTests.pipeline(forEach: "manager: repos, params: { repo: name }", extraManagers: repos)
        return listed ? yaml.replacing("managers: [issues]", with: "managers: [repos, issues]") : yaml
    }

    static func partitionLines(_ names: [String]) -> String {
        names.map { #"{"repo":"\#($0)"}"# + "\n" }.joined()
    }

    @Test func theListingLandsTheParentOnceAndGivesEachDistinctPartitionWithParentsWithoutTheFieldAsDeadLetters() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.yaml())
        // One parent record without a name: a dead letter, as in a run.
        let parents = ScriptedTransport()
        parents.on("/orgs/acme/repos", .json(#"[{"name": "widgets"}, {"id": 9}, {"name": "gadgets"}, {"name": "widgets"}]"#))
        let listing = try harness.runner("pipeline.yaml", transport: parents).partitions(of: "issues")
        #expect(listing.partitions.map(\.label) == ["repo=widgets", "repo=gadgets"])
        #expect(parents.requestKeys == ["GET /orgs/acme/repos"], "the parent alone was fetched")
        #expect(listing.summary.rejected == 1)
        #expect(try harness.read("reform-dead-letter.ndjson").contains("has no 'name'"))
        #expect(!harness.exists("out/issues.ndjson"), "a listing writes no output")
    }

    @Test(arguments: [false, true])
    func shardsGivenThePartitionsFetchNoParentAndConcatenateToTheWholeRun(listed: Bool) async throws {
        let whole = try RunHarness()
        try whole.write("pipeline.yaml", Self.yaml(listed: listed).replacing("reform: [issue]", with: "reform: []"))
        _ = try await whole.run("pipeline.yaml", transport: PartitionLimitTests.transport(names: Self.names))
        var concatenated = ""
        for index in 0..<3 {
            let harness = try RunHarness()
            try harness.write("pipeline.yaml", Self.yaml(listed: listed).replacing("reform: [issue]", with: "reform: []"))
            try harness.write("partitions.ndjson", Self.partitionLines(Self.names))
            var options = RunOptions()
            options.shard = (index, 3)
            options.partitionFiles = [("issues", harness.path("partitions.ndjson"))]
            let transport = PartitionLimitTests.transport(names: Self.names)
            _ = try await harness.run("pipeline.yaml", options: options, transport: transport)
            let parentRequests = transport.requestKeys.filter { $0.hasPrefix("GET /orgs/") }.count
            #expect(parentRequests == (listed && index == 0 ? 1 : 0), "shard \(index): only a listed parent's own output fetches it")
            concatenated += (try? harness.read("out/issues.ndjson")) ?? ""
        }
        #expect(concatenated == (try whole.read("out/issues.ndjson")))
    }

    @Test(arguments: [
        (#"{"repo":"widgets"}"# + "\n" + #"{"name":"gadgets"}"#, "partitions.ndjson:2: it has name"),
        (#"{"repo":["a"]}"#, "partitions.ndjson:1: 'repo' is a list or an object"),
        ("widgets", "partitions.ndjson:1: not a JSON object"),
    ])
    func aPartitionFileThatIsNotTheChildsParametersIsRefusedWithItsLine(text: String, message: String) async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.yaml())
        try harness.write("partitions.ndjson", text)
        var options = RunOptions()
        options.partitionFiles = [("issues", harness.path("partitions.ndjson"))]
        let transport = PartitionLimitTests.transport(names: Self.names)
        do {
            _ = try await harness.run("pipeline.yaml", options: options, transport: transport)
            Issue.record("the run succeeded")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.message.contains("--list-partitions issues"), "\(error.message)")
        }
        #expect(transport.requestKeys.isEmpty, "refused before any request")
    }

    @Test func aParentsParameterIsStillAcceptedWhenThePartitionsAreGiven() async throws {
        // (A job passes every task the same parameters, the parents' among them.)
        let harness = try RunHarness()
        let yaml = Self.yaml().replacing("path: /orgs/acme/repos", with: "path: /orgs/acme/repos\n    params: { org: { type: string } }")
        try harness.write("pipeline.yaml", yaml)
        try harness.write("partitions.ndjson", Self.partitionLines(Self.names))
        var options = RunOptions()
        options.params = ["org": .string("acme")]
        options.partitionFiles = [("issues", harness.path("partitions.ndjson"))]
        let transport = PartitionLimitTests.transport(names: Self.names)
        _ = try await harness.run("pipeline.yaml", options: options, transport: transport)
        #expect(try harness.lines("out/issues.ndjson") == PartitionTests.expected)
        #expect(!transport.requestKeys.contains { $0.hasPrefix("GET /orgs/") })
    }

    @Test func partitionsOfAManagerThatDoesNotFanOutFromAParentAreRefused() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", PartitionTests.pipeline(forEach: "param: repo, values: [widgets]"))
        try harness.write("partitions.ndjson", Self.partitionLines(["widgets"]))
        var options = RunOptions()
        options.partitionFiles = [("issues", harness.path("partitions.ndjson"))]
        await #expect(throws: RunError.self) {
            try await harness.run("pipeline.yaml", options: options, transport: PartitionTests.script())
        }
        #expect(throws: RunError.self) { try harness.runner("pipeline.yaml").partitions(of: "issues") }
    }
}
