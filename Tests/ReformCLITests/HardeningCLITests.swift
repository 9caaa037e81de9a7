import Foundation
import ReformTestSupport
import Testing

/// The command-line side of the limits and path containment: flags that raise or allow, and the
/// errors that name them.
@Suite("Hardening flags", .timeLimit(.minutes(10)))
struct HardeningCLITests {
    /// A pipeline in a fresh folder whose manager reads fixtures from `../outside`.
    func escapingPipeline() throws -> String {
        let folder = URL(fileURLWithPath: Scratch.path("escape"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("p.yaml").path
        try "reform: 1\nmanagers:\n  m: { fixtures: ../outside }\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func fixturesOutsideThePipelineFolderFailUnlessAllowed() async throws {
        let path = try escapingPipeline()
        let refused = try await CLIRunner.run(["validate", path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("\(path):3:18: error: '../outside' ('fixtures' of manager 'm') is outside the pipeline's folder"))
        #expect(refused.stderr.contains("pass --allow-outside-paths to allow it"))
        let allowed = try await CLIRunner.run(["validate", "--allow-outside-paths", path])
        #expect(allowed.status == 0)
    }

    @Test func yamlDepthIsConfigurableAndTheErrorNamesTheFlag() async throws {
        let result = try await CLIRunner.run(["validate", "--yaml-max-depth", "1", "Pipelines/property-list.yaml"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("deeper than 1 levels (YAMLLimits.maxDepth; raise it with reform --yaml-max-depth)"))
        #expect(try await CLIRunner.run(["validate", "--yaml-max-depth", "64", "Pipelines/property-list.yaml"]).status == 0)
    }

    @Test func recordSizeIsConfigurableFromTheCommandLine() async throws {
        let line = "{\"id\": \"" + String(repeating: "x", count: 200) + "\"}\n"
        let dead = Scratch.path("dead", suffix: ".ndjson")
        let result = try await CLIRunner.run(
            ["run", "Pipelines/property-list.yaml", "--input", "zufang=-", "--max-record-bytes", "64", "--dead-letter", dead, "--quiet"],
            stdin: line)
        #expect(result.status != 0)
        let letters = (try? String(contentsOfFile: dead, encoding: .utf8)) ?? ""
        #expect(letters.contains("line is longer than the limit of 64 bytes (raise it with --max-record-bytes)"))
        #expect(
            try await CLIRunner.run(["run", "Pipelines/property-list.yaml", "--max-body-bytes", "0"]).stderr.contains(
                "--max-body-bytes 0 must be at least 1"))
    }
}
