import Foundation
import ReformTestSupport
import Testing

/// The command-line contract, pinned by golden transcripts (exit code, stdout, stderr).
///
/// Re-record after an intended change with `RECORD_SNAPSHOTS=1 swift test --filter ReformCLITests`
/// and review the diff of `Tests/ReformCLITests/Snapshots/`.
@Suite("reform command line", .timeLimit(.minutes(10)))
struct CLISnapshotTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        var stdin: String? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "run-property-list-default", arguments: ["run", "Pipelines/property-list.yaml"]),
        Case(name: "run-property-list-ndjson", arguments: ["run", "Pipelines/property-list.yaml", "--format", "ndjson", "--quiet"]),
        Case(
            name: "run-property-list-rows-markdown",
            arguments: ["run", "Pipelines/property-list.yaml", "--run", "rows", "--format", "markdown"]),
        Case(name: "run-property-list-rows-csv", arguments: ["run", "Pipelines/property-list.yaml", "--run", "rows", "--format", "csv"]),
        Case(name: "run-orders-paid-only-json", arguments: ["run", "Pipelines/orders.yaml", "--run", "paid-only", "--format", "json"]),
        Case(
            name: "run-batch-stdin-with-rejects",
            arguments: ["run", "Pipelines/property-list.yaml", "--format", "ndjson", "--input", "xinfang=-", "--dead-letter", "/dev/null"],
            stdin: """
                {"xinfang_id":1,"xinfang_name":"A","xinfang_title":"T","xinfang_imageUrl":"u"}
                {"xinfang_id":2,"xinfang_name":"B"}
                not json
                {"xinfang_id":3,"xinfang_name":"C","xinfang_title":"T3","xinfang_imageUrl":"u3"}

                """),
        Case(
            name: "run-batch-stdin-with-rejects-jobs-2",
            arguments: [
                "run", "Pipelines/property-list.yaml", "--format", "ndjson", "--input", "xinfang=-", "--dead-letter", "/dev/null", "--jobs",
                "2",
            ],
            stdin: """
                {"xinfang_id":1,"xinfang_name":"A","xinfang_title":"T","xinfang_imageUrl":"u"}
                {"xinfang_id":2,"xinfang_name":"B"}
                not json
                {"xinfang_id":3,"xinfang_name":"C","xinfang_title":"T3","xinfang_imageUrl":"u3"}

                """),
        Case(name: "run-reminders-table", arguments: ["run", "Pipelines/reminders.yaml"]),
        Case(name: "run-reminders-table-colour", arguments: ["run", "Pipelines/reminders.yaml", "--colour", "always"]),
        Case(name: "run-reminders-markdown", arguments: ["run", "Pipelines/reminders.yaml", "--format", "markdown"]),
        Case(name: "run-reminders-csv", arguments: ["run", "Pipelines/reminders.yaml", "--format", "csv"]),
        Case(name: "run-reminders-html", arguments: ["run", "Pipelines/reminders.yaml", "--format", "html"]),
        Case(name: "run-reminders-ndjson", arguments: ["run", "Pipelines/reminders.yaml", "--format", "ndjson"]),
        Case(name: "run-reminders-json", arguments: ["run", "Pipelines/reminders.yaml", "--format", "json"]),
        Case(
            name: "run-reminders-batch-stdin-bad-date",
            arguments: [
                "run", "Pipelines/reminders.yaml", "--format", "csv", "--input", "events=-", "--input",
                "festivals=Tests/ReformCLITests/Inputs/festivals.ndjson", "--dead-letter", "/dev/null",
            ],
            stdin: """
                {"date":"2026-05-20","eventTitle":"纪念日, \\"520\\""}
                {"date":"soon","eventTitle":"someday"}
                {"date":1767225600,"eventTitle":"epoch seconds"}

                """),
        Case(name: "run-unknown-run", arguments: ["run", "Pipelines/property-list.yaml", "--run", "row"]),
        Case(name: "run-bad-param", arguments: ["run", "Pipelines/property-list.yaml", "--param", "city=Shang-hai"]),
        Case(name: "run-jobs-usage", arguments: ["run", "Pipelines/property-list.yaml", "--jobs", "0"]),
        Case(name: "run-limit-with-sample-usage", arguments: ["run", "Pipelines/property-list.yaml", "--limit", "2", "--sample", "2"]),
        Case(name: "run-reminders-limit", arguments: ["run", "Pipelines/reminders.yaml", "--limit", "2", "--format", "csv"]),
        Case(name: "run-format-typo", arguments: ["run", "Pipelines/property-list.yaml", "--format", "cvs"]),
        Case(
            name: "validate-shipped",
            arguments: ["validate", "Pipelines/property-list.yaml", "Pipelines/orders.yaml", "Pipelines/reminders.yaml"]),
        Case(name: "validate-errors", arguments: ["validate", "Tests/ReformCLITests/Inputs/broken-pipeline.yaml"]),
        Case(name: "validate-row-errors", arguments: ["validate", "Tests/ReformCLITests/Inputs/broken-rows.yaml"]),
        Case(name: "keys-swift", arguments: ["keys", "Pipelines/property-list.yaml", "--swift"]),
        Case(name: "cat-yaml-to-json", arguments: ["cat", "--to", "json", "Tests/ReformCLITests/Inputs/listing.yaml"]),
        Case(name: "cat-json-to-yaml", arguments: ["cat", "--to", "yaml", "Pipelines/fixtures/xinfang/002.json"]),
        Case(name: "cat-ndjson-to-table", arguments: ["cat", "--to", "table", "Tests/ReformCLITests/Inputs/records.ndjson"]),
        Case(name: "cat-invalid-json", arguments: ["cat", "--to", "ndjson", "Tests/ReformCLITests/Inputs/invalid.json"]),
    ]

    @Test(arguments: cases)
    func transcriptMatchesGolden(_ test: Case) async throws {
        let result = try await CLIRunner.run(test.arguments, stdin: test.stdin)
        let transcript = Snapshot.transcript(test.arguments, result)
        #expect(try Snapshot.matches(test.name, transcript), "golden Snapshots/\(test.name).txt differs:\n\(transcript)")
    }

    @Test func statsJSONCountsManagersAndStepsOnStandardError() async throws {
        let result = try await CLIRunner.run(["run", "Pipelines/property-list.yaml", "--format", "ndjson", "--quiet", "--stats", "json"])
        #expect(result.status == 0)
        let stats = try JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any]
        let managers = stats?["managers"] as? [[String: Any]]
        #expect(managers?.map { $0["name"] as? String } == ["zufang", "xinfang", "ershoufang"])
        #expect(managers?.compactMap { $0["records"] as? Int }.reduce(0, +) == 17)
        let steps = stats?["steps"] as? [[String: Any]]
        #expect(steps?.first?["reformer"] as? String == "property-list")
        #expect(steps?.first?["in"] as? Int == 17)
        #expect(stats?["seconds"] is Double)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressShowsOnATerminalOnlyAndNotWithQuiet() async throws {
        // `script` gives the command a terminal; its output is the terminal's (stdout and stderr).
        func onTerminal(_ extra: String) async throws -> String {
            let command = "\(CLIRunner.executable) run Pipelines/reminders.yaml --format csv --output /dev/null \(extra)"
            let result = try await CLIRunner.run(["-qec", command, "/dev/null"], executable: "/usr/bin/script")
            return result.stdout
        }
        let shown = try await onTerminal("")
        #expect(shown.contains("reform: events 4 records"))
        #expect(shown.contains("reform: festivals 5 records"))
        #expect(shown.contains("records/s"))
        #expect(!(try await onTerminal("--quiet")).contains("records/s"))
        #expect(!(try await CLIRunner.run(["run", "Pipelines/reminders.yaml", "--format", "csv"])).stderr.contains("records/s"))
    }

    @Test func theExecutableIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: CLIRunner.executable), "no reform at \(CLIRunner.executable)")
    }
}
