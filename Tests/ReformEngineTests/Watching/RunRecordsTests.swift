import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// ``Runner/records(buffer:)``: a run's output records as an async sequence, with no file
/// written; a consumer that stops early stops the run; a failed run throws.
@Suite(.timeLimit(.minutes(10))) struct RunRecordsTests {
    /// A copy of Pipelines/orders.yaml and the fixtures in a folder of its own, loaded.
    func orders() throws -> (Pipeline, TemporaryFolder) {
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: ProjectRoot.path + "/Pipelines/orders.yaml", toPath: folder.path + "/orders.yaml")
        try FileManager.default.copyItem(atPath: ProjectRoot.path + "/Pipelines/fixtures", toPath: folder.path + "/fixtures")
        return (try PipelineLoader(environment: [:]).load(path: folder.path + "/orders.yaml"), folder)
    }

    @Test func everyOutputsRecordsComeInTurnAndNoFileIsWritten() async throws {
        let (pipeline, folder) = try orders()
        // What the run writes, for comparison: its NDJSON output, read back.
        var written = RunOptions()
        written.outputFolder = folder.path + "/written"
        written.outputPath = "/dev/null"
        _ = try await Runner(pipeline: pipeline, options: written).run()
        let file = try String(contentsOfFile: folder.path + "/written/out/orders.ndjson", encoding: .utf8)
        let expected = try file.split(separator: "\n").map { try JSON.parse(String($0)) }

        var options = RunOptions()
        options.outputFolder = folder.path + "/sink"
        options.deadLetterPath = folder.path + "/dead.ndjson"
        let records = Runner(pipeline: pipeline, options: options).records(buffer: 2)
        var byOutput: [Int: [RunRecord]] = [:]
        for try await record in records { byOutput[record.output, default: []].append(record) }
        #expect(byOutput[0]?.map(\.value) == expected, "output 0's records are the file's")
        #expect(byOutput[1]?.count == 6 && byOutput[1]?.allSatisfy { $0.value.objectValue?["kOrderKeyStatus"] == "paid" } == true)
        let top = byOutput[2]?.compactMap { $0.value.objectValue?["kOrderKeyTotal"]?.doubleValue } ?? []
        #expect(top.count == 3 && top == top.sorted(by: >), "the top three, sorted: \(top)")
        #expect(byOutput[0]?.first?.origin.manager.name == "shop" && byOutput[0]?.first?.origin.sequence == 1)
        #expect(records.summary?.recordsIn == 10)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/sink"), "no output is written")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
    }

    @Test func aRunThatCannotStartThrowsItsError() async throws {
        let (pipeline, _) = try orders()
        var options = RunOptions()
        options.runName = "nightly"
        do {
            for try await _ in Runner(pipeline: pipeline, options: options).records() {}
            Issue.record("a run that does not exist gave records")
        } catch let error as RunError {
            #expect(error.message.contains("nightly"), "\(error.message)")
        }
    }

    @Test func endingTheLoopEarlyStopsTheRun() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + """

                managers:
                  items:
                    service: api
                    path: /paged/offset
                    params: { limit: 10, total: 100000 }
                    records: items
                    paging: { policy: offset, param: offset, size_param: limit }
                runs:
                  default: { managers: [items], output: { format: ndjson } }
                """)
        var options = RunOptions()
        options.mode = .live
        options.environment = ["TEST_URL": server.url]
        options.deadLetterPath = Scratch.path("dead.ndjson")
        var taken = 0
        for try await _ in Runner(pipeline: pipeline, options: options).records(buffer: 1) {
            taken += 1
            if taken == 3 { break }
        }
        #expect(taken == 3)
        // The run stops: its requests end far short of the 10,000 pages, and no more come.
        var sent = try await server.requests(path: "/paged/offset").count
        while true {
            try await Task.sleep(for: .milliseconds(200))
            let now = try await server.requests(path: "/paged/offset").count
            if now == sent { break }
            sent = now
        }
        #expect(sent < 100, "\(sent) pages were fetched after the loop ended")
    }
}
