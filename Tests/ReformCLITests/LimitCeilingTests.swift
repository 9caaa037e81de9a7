import Foundation
import ReformTestSupport
import Testing

/// Limits that could be raised into a crash have a ceiling, and oversized pipeline files are
/// refused at once (reliability audit D18, D19, D20).
@Suite("Limit ceilings", .timeLimit(.minutes(10)))
struct LimitCeilingTests {
    @Test(arguments: [
        (
            ["validate", "--yaml-max-depth", "100000000", "Pipelines/property-list.yaml"],
            "--yaml-max-depth 100000000 must be between 1 and 4096"
        ),
        (["run", "Pipelines/property-list.yaml", "--max-json-depth", "1000000"], "--max-json-depth 1000000 must be at most 4096"),
        (["validate", "--yaml-max-bytes", "0", "Pipelines/property-list.yaml"], "--yaml-max-bytes 0 must be at least 1"),
    ])
    func aFlagAboveItsCeilingIsAUsageError(arguments: [String], message: String) async throws {
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aPipelineFileAboveTheSizeLimitIsRefusedWithTheFlagToRaiseIt() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reform-big-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let line = "# " + String(repeating: "x", count: 1_022) + "\n"
        try ("reform: 1\n" + String(repeating: line, count: 4_200)).write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try await CLIRunner.run(["validate", path])
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "\(path):1:1: error: the input is 4305010 bytes, more than the limit of 4194304 (YAMLLimits.maxInputBytes; raise it with reform --yaml-max-bytes)"
            ), "\(refused.stderr)")
        let raised = try await CLIRunner.run(["validate", "--yaml-max-bytes", "5000000", path])
        #expect(!raised.stderr.contains("more than the limit"), "\(raised.stderr)")
    }
}
