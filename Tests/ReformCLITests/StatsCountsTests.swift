import Foundation
import ReformTestSupport
import Testing

/// `--stats json` counts what each reformer step let through, including records a step held back
/// and released at the end of the stream (audit D23).
@Suite("Stats counts", .timeLimit(.minutes(10)))
struct StatsCountsTests {
    /// The `steps` entries of `--stats json` for `arguments`, as (reformer, in, out, rejected).
    func steps(_ arguments: [String]) async throws -> [(String, Int, Int, Int)] {
        let result = try await CLIRunner.run(arguments + ["-q", "--stats", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any]
        let steps = try #require(stats?["steps"] as? [[String: Any]])
        return steps.map { step in
            (step["reformer"] as? String ?? "?", step["in"] as? Int ?? -1, step["out"] as? Int ?? -1, step["rejected"] as? Int ?? -1)
        }
    }

    /// A mapping the fast path applies as it writes NDJSON input straight to the output (issue
    /// 17): its step counted 0 in and 0 out while every record went through it.
    @Test(arguments: [1, 2]) func theFastPathCountsTheRecordsItWroteInTheirStep(jobs: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-stats-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
        reform: 1
        managers:
          m: { records: items }
        reformers:
          shape: { keys: { id: kID, n: kN }, map: { id: id, n: n } }
        runs:
          default: { reform: [shape], output: { format: ndjson } }

        """.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let lines = (0..<20).map { "{\"id\": \($0), \"n\": \($0 * 2)}\n" }.joined()
        try lines.write(toFile: folder + "/in.ndjson", atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run([
            "run", folder + "/p.yaml", "--input", "m=\(folder)/in.ndjson", "--output", folder + "/out.ndjson", "--jobs", "\(jobs)",
            "-q", "--stats", "json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any])
        #expect(stats["written_directly"] as? Int == 20, "the fast path wrote the records: \(result.stderr)")
        let step = try #require((stats["steps"] as? [[String: Any]])?.first)
        #expect(step["reformer"] as? String == "shape")
        #expect(step["in"] as? Int == 20 && step["out"] as? Int == 20 && step["rejected"] as? Int == 0, "\(step)")
    }

    @Test func aSortAndLimitStepCountsTheRecordsItReleasesAtTheEnd() async throws {
        // Other suites run this pipeline into the same out/ folder: wait for them.
        let steps = try await steps(["run", "Pipelines/orders.yaml", "--wait-lock"])
        let topThree = try #require(steps.first { $0.0 == "top-three" })
        #expect(topThree == ("top-three", 6, 3, 0))
    }
}
