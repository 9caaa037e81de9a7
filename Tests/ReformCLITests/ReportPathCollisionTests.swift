import Foundation
import ReformTestSupport
import Testing

/// `--stats-file` and `reform test --junit` never replace a file the command reads or writes
/// (reliability audit M6): refused, the file left as it was.
@Suite("Report path collisions", .timeLimit(.minutes(10)))
struct ReportPathCollisionTests {
    /// A folder with a pipeline `p.yaml`, its test file `p.test.yaml`, an input and a golden file.
    func folder() throws -> String {
        let folder = Scratch.path("report-collisions")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let files = [
            "p.yaml": "reform: 1\nmanagers: { m: {} }\n",
            "p.test.yaml":
                "tests:\n  - name: copies\n    inputs: { m: in.ndjson }\n    format: ndjson\n    expect: { output: golden.ndjson }\n",
            "in.ndjson": #"{"id":1}"# + "\n",
            "golden.ndjson": #"{"id":1}"# + "\n",
        ]
        for (name, text) in files { try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        return folder
    }

    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test(arguments: [
        ("in.ndjson", "--stats-file is an input of manager 'm', which writing it would replace; write to another path"),
        ("p.yaml", "--stats-file is the pipeline file, which writing it would replace; write to another path"),
        ("o.ndjson", "--stats-file and --output are the same file, so one would replace the other; give each its own path"),
        ("dead.ndjson", "--stats-file and the dead-letter file are the same file, so one would replace the other; give each its own path"),
    ])
    func theStatsFileCannotBeAFileTheRunUses(name: String, message: String) async throws {
        let folder = try folder()
        let before = try? read(folder + "/" + name)
        let result = try await ReformProcess.run(
            [
                "run", "p.yaml", "--input", "m=in.ndjson", "--output", "o.ndjson", "--dead-letter", "dead.ndjson", "--stats-file", name,
                "-q",
            ],
            in: folder)
        #expect(result.status == 1)
        #expect(result.stderr == "reform: error: \(name): \(message) (nothing was written)\n", "\(result.stderr)")
        #expect((try? read(folder + "/" + name)) == before)
    }

    @Test(arguments: ["p.test.yaml", "p.yaml", "golden.ndjson", "in.ndjson"])
    func theJUnitReportCannotReplaceAFileTheTestsRead(name: String) async throws {
        let folder = try folder()
        let before = try read(folder + "/" + name)
        let result = try await ReformProcess.run(["test", "p.yaml", "--junit", name], in: folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("reform: error: \(name): --junit is a file "), "\(result.stderr)")
        #expect(result.stderr.contains(", which writing it would replace; write to another path (the report was not written)"))
        #expect(try read(folder + "/" + name) == before)
        let written = try await ReformProcess.run(["test", "p.yaml", "--junit", "report.xml"], in: folder)
        #expect(written.status == 0, "\(written.stdout)\(written.stderr)")
    }
}
