import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformSystem
import Testing

/// Editing the pipeline or the outputs between incremental runs is refused with what changed,
/// never turned into duplicates, mixed files or cut bytes (reliability audit round 2: M7, L1, and
/// the tampered state of issue item 24).
@Suite(.timeLimit(.minutes(10))) struct IncrementalChangeTests {
    static func pipeline(manager: String = "a", key: String = "id", output: String = "{ format: ndjson, path: out/a.ndjson }") -> String {
        """
        reform: 1
        name: change
        services:
          gh: { base_url: "http://gh.test" }
        managers:
          \(manager):
            service: gh
            path: /a
            incremental: { cursor: t, param: since, format: number, key: \(key) }
        reformers:
          item:
            keys: { id: kID, t: kT }
            from:
              \(manager): { id: id, t: t }
        runs:
          default: { managers: [\(manager)], reform: [item], output: \(output) }
        """
    }

    static let records = #"[{"id": 1, "number": 11, "t": 5}, {"id": 2, "number": 12, "t": 7}]"#

    /// A first run that lands the two records into `out/a.ndjson` (or the output given).
    static func firstRun(_ harness: RunHarness, output: String = "{ format: ndjson, path: out/a.ndjson }") async throws {
        try harness.write("pipeline.yaml", pipeline(output: output))
        let transport = ScriptedTransport()
        transport.on("/a", .json(records))
        _ = try await harness.run("pipeline.yaml", transport: transport)
    }

    static func expectRefused(_ harness: RunHarness, containing text: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let transport = ScriptedTransport()
        transport.on("/a", .json(records))
        do {
            _ = try await harness.run("pipeline.yaml", transport: transport)
            Issue.record("the run went ahead", sourceLocation: sourceLocation)
        } catch {
            #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation)
            #expect(error.message.contains("--full-refresh"), sourceLocation: sourceLocation)
        }
        #expect(transport.requests.isEmpty, "nothing was fetched", sourceLocation: sourceLocation)
    }

    @Test func aRenamedManagerIsRefusedNotLandedAgain() async throws {
        let harness = try RunHarness()
        try await Self.firstRun(harness)
        let before = try harness.read("out/a.ndjson")
        try harness.write("pipeline.yaml", Self.pipeline(manager: "a2"))
        try await Self.expectRefused(harness, containing: "was saved by manager 'a', and this run's incremental manager is 'a2'")
        #expect(try harness.read("out/a.ndjson") == before)
    }

    @Test func aChangedKeyIsRefused() async throws {
        let harness = try RunHarness()
        try await Self.firstRun(harness)
        try harness.write("pipeline.yaml", Self.pipeline(key: "number"))
        try await Self.expectRefused(harness, containing: "the incremental key of manager 'a' is 'number' now and was 'id'")
    }

    @Test func anOutputSwitchedToAnotherFormatAtTheSamePathIsRefused() async throws {
        let harness = try RunHarness()
        try await Self.firstRun(harness, output: "{ format: ndjson, path: out/a.txt }")
        try harness.write("pipeline.yaml", Self.pipeline(output: "{ format: csv, path: out/a.txt }"))
        try await Self.expectRefused(harness, containing: "was written as ndjson by the last run and would be csv with columns kID, kT now")
    }

    @Test func bytesAnotherProgramAppendedAreNotCut() async throws {
        let harness = try RunHarness()
        try await Self.firstRun(harness)
        let fd = open(harness.path("out/a.ndjson"), O_WRONLY | O_APPEND)
        let line = Array(#"{"kID":99}"#.utf8) + [10]
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        try await Self.expectRefused(harness, containing: "has 11 bytes more than the last run left")
        #expect(try harness.lines("out/a.ndjson").last == #"{"kID":99}"#)
    }

    @Test func anOutputEditedInPlaceIsRefused() async throws {
        let harness = try RunHarness()
        try await Self.firstRun(harness)
        let text = try harness.read("out/a.ndjson")
        try harness.write("out/a.ndjson.new", text.replacing("\"kID\":2", with: "\"kID\":3"))
        // Same inode, same length, other bytes.
        let fd = open(harness.path("out/a.ndjson"), O_WRONLY)
        let bytes = Array(try harness.read("out/a.ndjson.new").utf8)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        try await Self.expectRefused(harness, containing: "was changed since the last run")
    }

    @Test func aStateWhoseOutputLengthWasEditedDoesNotEmptyTheOutput() async throws {
        let harness = try RunHarness()
        try await Self.firstRun(harness)
        let before = try harness.read("out/a.ndjson")
        let state = try harness.read("out/.change.reform-state.json")
        let bytes = before.utf8.count
        try harness.write(
            "out/.change.reform-state.json",
            state.replacing("\"bytes\": \(bytes)", with: "\"bytes\": 0").replacing("\"bytes\" : \(bytes)", with: "\"bytes\" : 0"))
        #expect(try harness.read("out/.change.reform-state.json") != state, "the state was edited")
        try await Self.expectRefused(harness, containing: "was changed since a run wrote it (its checksum does not match)")
        #expect(try harness.read("out/a.ndjson") == before)
    }

    @Test func bytesARunStoppedMidwayWroteAreStillCutBack() async throws {
        let harness = try RunHarness()
        try await Self.firstRun(harness)
        // A run that starts appending leaves the outputs marked as being written; bytes it wrote
        // before it was killed are its own, and cut back by the next run.
        let started = ScriptedTransport()
        started.on("/a", query: ["since": "7"], .json(#"{"message": "down"}"#, status: 503))
        await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", transport: started) }
        let fd = open(harness.path("out/a.ndjson"), O_WRONLY | O_APPEND)
        let torn = Array(#"{"kID":3,"k"#.utf8)
        _ = torn.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let next = ScriptedTransport()
        next.on("/a", query: ["since": "7"], .json(#"[{"id": 3, "t": 9}]"#))
        _ = try await harness.run("pipeline.yaml", transport: next)
        #expect(try harness.lines("out/a.ndjson") == [#"{"kID":1,"kT":5}"#, #"{"kID":2,"kT":7}"#, #"{"kID":3,"kT":9}"#])
    }
}
