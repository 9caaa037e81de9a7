import Foundation
import ReformTestSupport
import Testing

/// `--stats json` counts what each reformer step let through, including records a step held back
/// and released at the end of the stream (audit D23).
@Suite("Stats counts")
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

    @Test func aSortAndLimitStepCountsTheRecordsItReleasesAtTheEnd() async throws {
        let steps = try await steps(["run", "Pipelines/orders.yaml"])
        let topThree = try #require(steps.first { $0.0 == "top-three" })
        #expect(topThree == ("top-three", 6, 3, 0))
    }
}
