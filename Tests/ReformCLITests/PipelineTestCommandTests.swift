import Foundation
import ReformTestSupport
import Testing

/// `reform test`: the runner's report (one line per test, a diff on failure, the summary), its exit
/// codes, and `--update` rewriting golden files.
///
/// Transcripts are golden files in `Snapshots/` (timings replaced by `N ms`); re-record them with
/// `RECORD_SNAPSHOTS=1 swift test --filter ReformCLITests`.
@Suite("reform test", .timeLimit(.minutes(10)))
struct PipelineTestCommandTests {
    static let inputs = "Tests/ReformCLITests/Inputs/PipelineTests"

    /// The transcript with every `(12 ms)` made `(N ms)`, so it repeats.
    static func transcript(_ arguments: [String], _ result: CLIRunner.Result) -> String {
        let text = Snapshot.transcript(arguments, result)
        let timing = /\(\d+ ms\)/
        return text.replacing(timing, with: "(N ms)")
    }

    @Test("a pipeline's tests pass: one PASS line per test and the summary, exit 0")
    func passing() async throws {
        let arguments = ["test", "Pipelines/property-list.yaml"]
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try Snapshot.matches("test-property-list", Self.transcript(arguments, result)))
    }

    @Test("failing tests print FAIL, what differs as a diff, the summary, and exit 1")
    func failing() async throws {
        let arguments = ["test", "\(Self.inputs)/failing.test.yaml"]
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 1)
        #expect(result.stdout.hasSuffix("1 passed, 3 failed\n"))
        #expect(try Snapshot.matches("test-failing", Self.transcript(arguments, result)))
    }

    @Test("--filter runs only the tests whose name contains the text")
    func filter() async throws {
        let arguments = ["test", "\(Self.inputs)/failing.test.yaml", "--filter", "still passes"]
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"))
    }

    @Test("an invalid test file is reported as file:line:column and exits 2")
    func invalid() async throws {
        let arguments = ["test", "\(Self.inputs)/invalid.test.yaml"]
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 2)
        #expect(try Snapshot.matches("test-invalid", Self.transcript(arguments, result)))
    }

    @Test("--update rewrites an out-of-date golden file, and then the test passes")
    func update() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-test-update-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let golden = folder.appendingPathComponent("golden.md")
        try "out of date\n".write(to: golden, atomically: true, encoding: .utf8)
        let testFile = folder.appendingPathComponent("rows.test.yaml")
        try """
        pipeline: \(CLIRunner.projectRoot)/Pipelines/property-list.yaml
        tests:
          - name: rows
            run: rows
            format: markdown
            expect: { output: golden.md, counts: { rejected: 0 } }
        """.write(to: testFile, atomically: true, encoding: .utf8)

        let before = try await CLIRunner.run(["test", testFile.path])
        #expect(before.status == 1)
        #expect(before.stdout.contains("- out of date"))

        let updating = try await CLIRunner.run(["test", testFile.path, "--update"])
        #expect(updating.status == 0, "\(updating.stdout)\(updating.stderr)")
        #expect(updating.stdout.contains("updated \(golden.path)"))
        let expected = try await CLIRunner.run(["run", "Pipelines/property-list.yaml", "--run", "rows", "--format", "markdown", "--quiet"])
        #expect(try String(contentsOf: golden, encoding: .utf8) == expected.stdout)
        #expect(try String(contentsOf: testFile, encoding: .utf8).contains("counts: { rejected: 0 }"))

        let after = try await CLIRunner.run(["test", testFile.path])
        #expect(after.status == 0)
        #expect(after.stdout.hasSuffix("1 passed, 0 failed\n"))
    }
}
