import Foundation
import ReformTestSupport
import Testing

/// What an engine running Reform as a task relies on: rejected records need not fail the task
/// (`--max-rejects`), and the counts can go to a file of their own (`--stats-file`).
@Suite("Running inside an engine", .timeLimit(.minutes(10)))
struct EngineContractTests {
    /// The property-list pipeline over the test input with two bad records.
    func run(_ extra: [String], in folder: String) async throws -> CLIRunner.Result {
        try await CLIRunner.run(
            [
                "run", "Pipelines/property-list.yaml", "--format", "ndjson", "--input",
                "zufang=Pipelines/tests/property-list/zufang-bad.ndjson", "--output", folder + "/out.ndjson", "--dead-letter",
                folder + "/dead.ndjson", "--allow-outside-paths", "-q",
            ] + extra)
    }

    @Test func rejectsUpToTheThresholdExitZeroAndAboveItExitThree() async throws {
        let folder = Scratch.path("contract")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try await run([], in: folder).status == 3, "by default any rejected record exits 3")
        let within = try await run(["--max-rejects", "2"], in: folder)
        #expect(within.status == 0)
        #expect(within.stderr.contains("1 out, 2 rejected"), "the summary still reports them: \(within.stderr)")
        #expect(try String(contentsOfFile: folder + "/dead.ndjson", encoding: .utf8).split(separator: "\n").count == 2)
        #expect(try await run(["--max-rejects", "1"], in: folder).status == 3)
    }

    @Test func theStatsFileHoldsTheTotals() async throws {
        let folder = Scratch.path("contract")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try await run(["--max-rejects", "5", "--stats-file", folder + "/stats.json"], in: folder)
        #expect(result.status == 0)
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/stats.json"))) as? [String: Any]
        #expect(stats?["in"] as? Int == 3)
        #expect(stats?["out"] as? Int == 1)
        #expect(stats?["rejected"] as? Int == 2)
        #expect(!result.stderr.contains("\"steps\""), "the stats went to the file, not to stderr")
    }

    @Test func eachTaskKeepsItsOwnDeadLettersWithAShardInThePath() async throws {
        let folder = Scratch.path("contract")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for shard in 0..<2 {
            let result = try await CLIRunner.run([
                "run", "Pipelines/property-list.yaml", "--format", "ndjson", "--input",
                "zufang=Pipelines/tests/property-list/zufang-bad.ndjson", "--output", folder + "/out-\(shard).ndjson", "--dead-letter",
                folder + "/dead-{shard}.ndjson", "--shard", "\(shard)/2", "--allow-outside-paths", "-q", "--max-rejects", "9",
            ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: folder + "/dead-0.ndjson"))
        #expect(FileManager.default.fileExists(atPath: folder + "/dead-1.ndjson"))
    }
}
