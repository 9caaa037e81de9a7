import Foundation
import ReformTestSupport
import Testing

/// `reform schema --records PIPELINE`: lands an incremental pipeline's run from its fixtures and
/// prints its records' schema, leaving the outputs and the saved state as they were.
@Suite("reform schema --records", .timeLimit(.minutes(10)))
struct RecordSchemaCLITests {
    /// A copy of Pipelines/github-incremental.yaml and its fixtures in a folder of its own.
    static func incrementalPipeline() throws -> String {
        let folder = NSTemporaryDirectory() + "reform-records-" + UUID().uuidString
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/fixtures/github", withIntermediateDirectories: true)
        let root = ProjectRoot.path + "/Pipelines/"
        try manager.copyItem(atPath: root + "github-incremental.yaml", toPath: folder + "/github-incremental.yaml")
        try manager.copyItem(atPath: root + "fixtures/github/incremental", toPath: folder + "/fixtures/github/incremental")
        return folder
    }

    /// Every file under `folder`, with its bytes.
    static func files(under folder: String) throws -> [String: Data] {
        var found: [String: Data] = [:]
        for path in (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? [] {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                found[path] = FileManager.default.contents(atPath: folder + "/" + path)
            }
        }
        return found
    }

    @Test func describesTheLandedRecordsAndLeavesOutputsAndStateAlone() async throws {
        let folder = try Self.incrementalPipeline()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A first run writes the output and the saved state.
        let first = try await ReformProcess.run(["run", "github-incremental.yaml", "-q"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try Self.files(under: folder)
        #expect(before.keys.contains("out/.github-incremental.reform-state.json"))

        let result = try await ReformProcess.run(["schema", "--records", "github-incremental.yaml"], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        #expect(document["title"] as? String == "Records of manager 'issues' of github-incremental")
        let properties = try #require(document["properties"] as? [String: Any])
        #expect((properties["updated_at"] as? [String: Any])?["format"] as? String == "date-time")
        #expect((properties["number"] as? [String: Any])?["type"] as? String == "integer")
        #expect((document["required"] as? [String])?.contains("updated_at") == true)
        #expect(result.stderr.hasPrefix("reform: schema of "))
        #expect(result.stderr.contains(" records of 'issues' (run 'default', fixtures)"))
        // Nothing written, nothing changed: the state still says where the first run stopped.
        #expect(try Self.files(under: folder) == before)

        // A landing may stop early, which an incremental run refuses (its bookmark would pass what
        // it left out): a landing keeps no bookmark.
        let limited = try await ReformProcess.run(["schema", "--records", "github-incremental.yaml", "--limit", "3"], in: folder)
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(limited.stderr.contains("reform: schema of 3 records of 'issues'"))
        #expect(try Self.files(under: folder) == before)
    }

    @Test func usageMistakesSayWhatToGive() async throws {
        let bare = try await ReformProcess.run(["schema", "Pipelines/github-issues.yaml"])
        #expect(bare.status == 64)
        #expect(bare.stderr.contains("'Pipelines/github-issues.yaml': give a pipeline file with --records, to describe its landed records"))
        let missing = try await ReformProcess.run(["schema", "--records"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--records needs the pipeline file, as in 'reform schema --records listings.yaml'"))
        let manager = try await ReformProcess.run(["schema", "--records", "Pipelines/github-issues.yaml", "--manager", "isues"])
        #expect(manager.status == 64)
        #expect(manager.stderr.contains("lands no manager called 'isues'; did you mean 'issues'?; it lands: issues"))
        let stray = try await ReformProcess.run(["schema", "--manager", "issues"])
        #expect(stray.status == 64)
        #expect(stray.stderr.contains("--manager, --run, --param, --input, --live, --env and --limit go with --records"))
    }
}
