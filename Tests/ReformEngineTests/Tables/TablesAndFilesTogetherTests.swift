import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformSystem
import Testing

/// A run that loads tables and writes files lands both or neither (reliability audit round 2, M8):
/// when a file cannot be put in place, the tables are not committed.
@Suite(.timeLimit(.minutes(10))) struct TablesAndFilesTogetherTests {
    /// Answers from `script`, and before the second request makes `blocker` a folder, so that the
    /// run's file output cannot be renamed into place at the end.
    struct BlockingTransport: Transport {
        let script: ScriptedTransport
        let blocker: String

        func send(_ request: HTTPRequest, for manager: ManagerRef) async throws(TransportError) -> HTTPResponse {
            if script.requests.count == 1 {
                mkdir(blocker, 0o755)
                mkdir(blocker + "/inside", 0o755)
            }
            return try await script.send(request, for: manager)
        }
    }

    static let pipeline = """
        reform: 1
        name: both
        services:
          api: { base_url: "http://api.test" }
        managers:
          items:
            service: api
            path: /items
            params: { per_page: 1 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
        reformers:
          item: { keys: { id: kID }, from: { items: { id: id } } }
        runs:
          default:
            managers: [items]
            outputs:
              - { reform: [item], sqlite: out/items.db, table: items, mode: replace }
              - { reform: [item], format: ndjson, path: out/items.ndjson }
        """

    @Test func whenAFileCannotBePutInPlaceTheTablesAreNotCommitted() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        let first = ScriptedTransport()
        first.on("/items", query: ["page": "1"], .json(#"[{"id": 1}]"#))
        first.on("/items", query: ["page": "2"], .json("[]"))
        _ = try await harness.run("pipeline.yaml", transport: first)
        #expect(try SQLiteFile(harness.path("out/items.db")).rows("SELECT count(*) FROM items WHERE kID IN (1, '1')") == ["1"])

        unlink(harness.path("out/items.ndjson"))
        let script = ScriptedTransport()
        script.on("/items", query: ["page": "1"], .json(#"[{"id": 2}]"#))
        script.on("/items", query: ["page": "2"], .json(#"[{"id": 3}]"#))
        script.on("/items", query: ["page": "3"], .json("[]"))
        var options = RunOptions()
        options.mode = .live
        options.transport = BlockingTransport(script: script, blocker: harness.path("out/items.ndjson"))
        do {
            _ = try await harness.run("pipeline.yaml", options: options)
            Issue.record("the run put a file over a folder")
        } catch {
            #expect(error.message.contains("cannot move the finished file into place"), "\(error.message)")
        }
        #expect(
            try SQLiteFile(harness.path("out/items.db")).rows("SELECT count(*) FROM items WHERE kID IN (1, '1')") == ["1"],
            "the table is as it was")
    }
}
