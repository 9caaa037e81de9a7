import ReformEngine
import ReformEngineTesting
import ReformSDK
import Synchronization
import Testing

/// A whole run through `RunHarness` with the live manager answered by a `ScriptedTransport`:
/// what a library user's test of their pipeline looks like.
@Suite(.timeLimit(.minutes(10))) struct RunHarnessTests {
    static let pipeline = """
        reform: 1
        services:
          shop: { base_url: "http://shop.test" }
        managers:
          orders:
            service: shop
            path: /orders
            params: { page_size: 2 }
            records: orders
            paging: { policy: page, param: page, stop: { short_page: page_size } }
        reformers:
          order:
            keys: { id: ID, total: TOTAL }
            from:
              orders: { id: id, total: total }
        runs:
          default:
            managers: [orders]
            outputs:
              - { reform: [order], format: ndjson, path: out/orders.ndjson }
        """

    @Test func aLiveRunAnsweredByTheScriptWritesItsOutputInTheFolder() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        let transport = ScriptedTransport()
        transport.on("/orders", query: ["page": "1"], .json(#"{"orders": [{"id": 1, "total": 9.5}, {"id": 2, "total": 3}]}"#))
        transport.on("/orders", query: ["page": "2"], .json(#"{"orders": [{"id": 3, "total": 1}]}"#))
        let summary = try await harness.run("pipeline.yaml", transport: transport)
        #expect(summary.recordsIn == 3)
        let written = try harness.lines("out/orders.ndjson")
        #expect(written == [#"{"ID":1,"TOTAL":9.5}"#, #"{"ID":2,"TOTAL":3}"#, #"{"ID":3,"TOTAL":1}"#])
        #expect(transport.requestKeys == ["GET /orders?page=1&page_size=2", "GET /orders?page=2&page_size=2"])
        #expect(!harness.exists("reform-dead-letter.ndjson"))
    }

    @Test func anUnscriptedRequestFailsTheRunAndNamesTheRequest() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline)
        let transport = ScriptedTransport()
        transport.on("/orders", query: ["page": "1"], .json(#"{"orders": [{"id": 1, "total": 9.5}, {"id": 2, "total": 3}]}"#))
        do {
            _ = try await harness.run("pipeline.yaml", transport: transport)
            Issue.record("the run succeeded without an answer for page 2")
        } catch {
            #expect(error.managerError?.kind == .notRecorded)
            #expect(error.message.contains("GET /orders?page=2&page_size=2"))
            #expect(!harness.exists("out/orders.ndjson"), "a failed run writes no output")
        }
    }
}

/// The progress a live manager reports: it reads no file, so it has no total to count down to
/// (issue 42: the line said `0.1 MB of 0.0 MB · ETA 0:00`).
@Suite("Progress of a live run", .timeLimit(.minutes(10)))
struct LiveProgressTests {
    final class Reports: Sendable {
        private let list = Mutex<[RunProgress]>([])
        func append(_ progress: RunProgress) { list.withLock { $0.append(progress) } }
        var all: [RunProgress] { list.withLock { $0 } }
    }

    @Test func aLiveManagerHasNoTotalBytes() async throws {
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            """
            reform: 1
            services: { api: { base_url: "http://api.test" } }
            managers: { items: { service: api, path: /items } }
            runs: { default: { output: { format: ndjson, path: out.ndjson } } }
            """)
        let transport = ScriptedTransport()
        transport.on("/items", .json(#"[{"id": 1}, {"id": 2}]"#))
        let reports = Reports()
        var options = RunOptions()
        options.progress = { reports.append($0) }
        _ = try await harness.run("p.yaml", options: options, transport: transport)
        #expect(!reports.all.isEmpty)
        #expect(reports.all.allSatisfy { $0.totalBytes == nil }, "\(reports.all.map(\.totalBytes))")
    }
}

/// `--sample` reads every input before it lands a record; the progress line stood still during
/// that read (12-14 s on a large input, issue 42). Its bytes are now reported as it reads.
@Suite("Progress of a sampled run", .timeLimit(.minutes(10)))
struct SampleProgressTests {
    @Test func bytesAreReportedWhileTheSampleIsRead() async throws {
        let harness = try RunHarness()
        try harness.write(
            "p.yaml", "reform: 1\nmanagers: { a: {} }\nruns: { default: { output: { format: ndjson, path: out.ndjson } } }\n")
        // Large enough that reading it takes longer than the meter's 0.2 s between reports.
        let input = try harness.write("a.ndjson", (0..<400_000).map { #"{"id":\#($0),"text":"a line of some length"}"# + "\n" }.joined())
        let reports = LiveProgressTests.Reports()
        var options = RunOptions()
        options.inputs = [("a", input)]
        options.sample = 10
        options.progress = { reports.append($0) }
        let summary = try await harness.run("p.yaml", options: options)
        #expect(summary.recordsIn == 10)
        #expect(reports.all.contains { !$0.finished && $0.records == 0 && $0.bytes > 0 }, "\(reports.all.map { ($0.records, $0.bytes) })")
    }
}
