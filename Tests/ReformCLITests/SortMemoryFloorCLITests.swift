import ReformTestSupport
import Testing

/// `--sort-memory` has a floor: below 1 MiB a sort spills a run every few records and merging
/// them took more memory than the budget saved (reliability audit r2 L6: 1 byte peaked at 2.1 GB).
@Suite(.timeLimit(.minutes(10))) struct SortMemoryFloorCLITests {
    @Test func sortMemoryBelowOneMebibyteIsAUsageError() async throws {
        // (Other suites run this pipeline into the same out/ folder: --wait-lock waits for them.)
        for value in ["1", "1000", "1048575"] {
            let result = try await CLIRunner.run([
                "run", "Pipelines/orders.yaml", "--sort-memory", value, "--output", "/dev/null", "--wait-lock",
            ])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "--sort-memory \(value) must be at least 1048576 (1 MiB): a smaller budget spills so many small runs that merging them takes more memory, not less"
                ), "\(result.stderr)")
        }
        let floor = try await CLIRunner.run([
            "run", "Pipelines/orders.yaml", "--sort-memory", "1048576", "--output", "/dev/null", "--wait-lock",
        ])
        #expect(floor.status == 0, "\(floor.stderr)")
    }
}
