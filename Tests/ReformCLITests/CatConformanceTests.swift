import Foundation
import ReformSDK
import ReformTestSupport
import Testing

/// `reform cat --to ndjson` on a few yaml-test-suite cases (`../shared/conformance/yaml`), through
/// the binary as users run it. The whole suite runs in process in
/// `ReformEngineTests/CatConformanceTests`.
@Suite("reform cat against yaml-test-suite", .timeLimit(.minutes(10)))
struct CatConformanceTests {
    static let suite = URL(fileURLWithPath: CLIRunner.projectRoot + "/../shared/conformance/yaml").standardizedFileURL.path

    /// Valid cases: a block mapping, a flow sequence, anchors and aliases, several documents,
    /// a literal block scalar.
    @Test(arguments: ["2XXW", "5KJE", "3GZX", "6ZKB", "96L6"])
    func aValidCaseIsItsJSON(_ name: String) async throws {
        let folder = Self.suite + "/" + name
        try #require(FileManager.default.fileExists(atPath: folder + "/in.json"), "\(name) is not a valid case with in.json")
        let result = try await CLIRunner.run(["cat", "--to", "ndjson", folder + "/in.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try JSON.parseSequence([UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/in.json"))))
        #expect(try JSON.parseSequence(result.stdout) == expected)
    }

    /// Invalid cases are refused with the file, line and column.
    @Test(arguments: ["236B", "9MAG"])
    func anInvalidCaseIsRefusedWithItsPlace(_ name: String) async throws {
        let folder = Self.suite + "/" + name
        try #require(FileManager.default.fileExists(atPath: folder + "/error"), "\(name) is not an invalid case")
        let result = try await CLIRunner.run(["cat", "--to", "ndjson", folder + "/in.yaml"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("in.yaml:"), "\(result.stderr)")
    }
}
