import Foundation
import ReformEngine
import ReformTooling
import ReformYAML
import Testing

/// Nothing a pipeline or test file declares reads or writes outside its folder unless allowed:
/// symlinked fixture files, golden files, output paths, manager names used as cache folders
/// (reliability audit D10, D11).
@Suite("Confinement", .timeLimit(.minutes(10)))
struct ConfinementTests {
    /// The error lines of loading `yaml` as `p.yaml` in `folder` (`<dir>` for the folder).
    func errors(_ yaml: String, in folder: TemporaryFolder, allow: Bool = false) throws -> [String] {
        let path = try folder.write("p.yaml", yaml)
        do {
            _ = try PipelineLoader(environment: ["ESC_DIR": "/tmp"], allowOutsidePaths: allow).load(path: path)
            return []
        } catch {
            return error.diagnostics.filter { $0.severity == .error }.map {
                $0.description.replacingOccurrences(of: folder.path, with: "<dir>")
            }
        }
    }

    @Test func aSymlinkedFixtureFileLeadingOutsideIsAnError() throws {
        let folder = try TemporaryFolder()
        let outside = try TemporaryFolder()
        try folder.write("fixtures/m/001.json", "{}")
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/fixtures/m/002.json", withDestinationPath: try outside.write("secret.json", "{}"))
        let yaml = "reform: 1\nmanagers:\n  m: { fixtures: fixtures/m }\n"
        let found = try errors(yaml, in: folder)
        #expect(found.count == 1)
        #expect(
            found.first?.hasPrefix("<dir>/p.yaml:3:18: error: 'fixtures/m/002.json' (a file of 'fixtures' of manager 'm') is a link to ")
                == true, "\(found)")
        #expect(
            found.first?.hasSuffix("outside the pipeline's folder; copy the file inside, or pass --allow-outside-paths to allow it") == true
        )
        #expect(try errors(yaml, in: folder, allow: true) == [])
    }

    @Test(arguments: ["../escape.ndjson", "/tmp/escape.ndjson", "${ESC_DIR}/escape.ndjson", "out/../../escape.ndjson"])
    func anOutputPathLeadingOutIsAnError(path: String) throws {
        let folder = try TemporaryFolder()
        let yaml = "reform: 1\nmanagers: { m: {} }\nruns:\n  default: { output: { format: ndjson, path: \"\(path)\" } }\n"
        let found = try errors(yaml, in: folder)
        #expect(found.count == 1)
        #expect(found.first?.contains("leads outside the working folder; give a relative path inside it") == true, "\(found)")
        #expect(try errors(yaml, in: folder, allow: true) == [])
        #expect(try errors(yaml.replacingOccurrences(of: path, with: "out/./in/../ok.ndjson"), in: folder) == [])
    }

    @Test func aManagerNameThatIsNotAFileNameIsAnError() throws {
        let folder = try TemporaryFolder()
        let found = try errors("reform: 1\nmanagers:\n  \"../../cache-escape\": { cache: { store: disk } }\n", in: folder)
        #expect(
            found.first?.hasPrefix("<dir>/p.yaml:3:3: error: manager name '../../cache-escape' cannot be used as a file name") == true,
            "\(found)")
    }

    @Test func aGoldenFileOutsideTheTestFolderIsAnError() throws {
        let folder = try TemporaryFolder()
        try folder.write("p.yaml", "reform: 1\nmanagers: { m: {} }\n")
        let tests = try folder.write(
            "p.test.yaml", "tests:\n  - name: leak\n    expect: { output: ../outside/secret.txt }\n")
        #expect {
            try PipelineTestLoader(environment: [:]).load(path: tests)
        } throws: { error in
            "\(error)".contains(
                "p.test.yaml:3:23: error: golden file '../outside/secret.txt' ('output' of test 'leak') is outside the test file's folder")
        }
        #expect(throws: Never.self) { try PipelineTestLoader(environment: [:], allowOutsidePaths: true).load(path: tests) }
    }
}
