import Foundation
import ReformTestSupport
import Testing

/// `reform test --junit PATH`: the JUnit XML report CI dashboards read, checked by parsing it with
/// Python's `xml.etree` (as those tools' parsers would) and reading its structure back.
@Suite("reform test --junit", .timeLimit(.minutes(10)))
struct JUnitReportTests {
    static let python = "/usr/bin/python3"

    /// The report's structure, one line per element: the root's counts, then per suite its name,
    /// counts and file, then per test case its name, class name and failure or error message.
    /// Every `time` attribute must read as a number of seconds.
    static let summarise = #"""
        import sys, xml.etree.ElementTree as E
        root = E.parse(sys.argv[1]).getroot()
        def seconds(e):
            t = float(e.get("time"))
            assert t >= 0, t
        seconds(root)
        print(root.tag, root.get("name"), "tests=" + root.get("tests"), "failures=" + root.get("failures"), "errors=" + root.get("errors"))
        for suite in root:
            seconds(suite)
            print(" ", suite.tag, suite.get("name"), "tests=" + suite.get("tests"), "failures=" + suite.get("failures"),
                  "errors=" + suite.get("errors"), "skipped=" + suite.get("skipped"), suite.get("file"))
            for case in suite:
                seconds(case)
                outcome = [c.tag + ": " + c.get("message") for c in case]
                print("   ", case.tag, case.get("classname"), "|", case.get("name"), *(["|", "; ".join(outcome)] if outcome else []))
                for c in case:
                    assert c.text and c.get("message") in c.text, c.text
        """#

    func report(_ arguments: [String]) async throws -> (result: CLIRunner.Result, structure: String, xml: String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reform-junit-\(UUID().uuidString).xml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try await CLIRunner.run(["test"] + arguments + ["--junit", path])
        let parsed = try await CLIRunner.run(["-c", Self.summarise, path], executable: Self.python)
        #expect(parsed.status == 0, "xml.etree could not read the report: \(parsed.stderr)")
        let xml = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return (result, parsed.stdout, xml)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python)))
    func oneSuitePerTestFileOneCasePerTestFailuresWithTheirMessages() async throws {
        let failing = "Tests/ReformCLITests/Inputs/PipelineTests/failing.test.yaml"
        let (result, structure, xml) = try await report([failing, "Pipelines/reminders.yaml"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("3 passed, 3 failed\n"), "the report does not change what is printed")
        #expect(
            structure == """
                testsuites reform test tests=6 failures=3 errors=0
                  testsuite property-list tests=4 failures=3 errors=0 skipped=0 \(failing)
                    testcase property-list | golden and requests out of date | failure: standard output differs from Tests/ReformCLITests/Inputs/PipelineTests/failing-golden.ndjson (- expected, + actual; 'reform test --update' re-records it)
                    testcase property-list | an error that does not happen | failure: expected the run to fail with 'no recorded exchange', but it finished: reform: 17 in, 17 out, 0 rejected
                    testcase property-list | fewer rejects than expected | failure: expected 1 dead-letter record, got 2:
                    testcase property-list | still passes
                  testsuite reminders tests=2 failures=0 errors=0 skipped=0 Pipelines/reminders.test.yaml
                    testcase reminders | events and festivals merge into one table by date
                    testcase reminders | the same rows as a markdown table

                """)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"))
        // The whole failure is the element's text: every difference, with its diff lines.
        #expect(xml.contains("zufang stopped paging because 'short page (1 &lt; 3)', expected 'empty page'"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python)))
    func anInvalidTestFileAndAnUntestedPipelineAreInTheReportToo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-junit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "reform: 1\nmanagers: { m: {} }\n".write(toFile: folder + "/lonely.yaml", atomically: true, encoding: .utf8)
        let invalid = "Tests/ReformCLITests/Inputs/PipelineTests/invalid.test.yaml"
        let (result, structure, _) = try await report([invalid, folder + "/lonely.yaml"])
        #expect(result.status == 2)
        let lines = structure.split(separator: "\n").map(String.init)
        #expect(lines.first == "testsuites reform test tests=2 failures=1 errors=1")
        #expect(lines.contains("  testsuite invalid tests=1 failures=0 errors=1 skipped=0 \(invalid)"), "\(structure)")
        #expect(lines.contains { $0.hasPrefix("    testcase invalid | (test file) | error: \(invalid):") }, "\(structure)")
        #expect(lines.contains("  testsuite lonely tests=1 failures=1 errors=0 skipped=0 \(folder)/lonely.yaml"), "\(structure)")
        #expect(
            lines.contains("    testcase lonely | (no tests) | failure: no tests: write \(folder)/lonely.test.yaml beside it"),
            "\(structure)")
    }

    /// A test can be skipped with its reason (`skip:`): printed as SKIP, counted apart, never run,
    /// and a `<skipped>` in the report; every case names the test file and the line its test
    /// starts on, so a dashboard links to it (both were missing, issue 42).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python)))
    func aSkippedTestIsReportedAsSkippedAndEachCaseNamesItsFileAndLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reform-junit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "reform: 1\nmanagers: { a: {} }\nruns: { default: { output: { format: ndjson } } }\n".write(
            toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        try "{\"id\":1}\n".write(toFile: folder + "/a.ndjson", atomically: true, encoding: .utf8)
        let tests = """
            tests:
              - name: reads its input
                inputs: { a: a.ndjson }
                expect: { output: { records: [ { id: 1 } ] } }
              - name: waits for version 2
                skip: "the API's v2 is not out yet"
                inputs: { a: a.ndjson }
                expect: { output: { records: [ { id: 2 } ] } }
            """
        try tests.write(toFile: folder + "/p.test.yaml", atomically: true, encoding: .utf8)
        let (result, structure, _) = try await report([folder + "/p.test.yaml"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("SKIP p › waits for version 2: the API's v2 is not out yet\n"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("1 passed, 0 failed, 1 skipped\n"), "\(result.stdout)")
        let lines = structure.split(separator: "\n").map(String.init)
        #expect(lines.first == "testsuites reform test tests=2 failures=0 errors=0", "\(structure)")
        #expect(lines.contains("  testsuite p tests=2 failures=0 errors=0 skipped=1 \(folder)/p.test.yaml"), "\(structure)")
        #expect(lines.contains("    testcase p | waits for version 2 | skipped: the API's v2 is not out yet"), "\(structure)")
        // Each case's file and line: where its `- name:` is.
        let path = folder + "/report.xml"
        _ = try await CLIRunner.run(["test", folder + "/p.test.yaml", "--junit", path])
        let cases = try await CLIRunner.run(
            [
                "-c",
                "import sys, xml.etree.ElementTree as E\nfor c in E.parse(sys.argv[1]).getroot().iter('testcase'): print(c.get('file'), c.get('line'))",
                path,
            ], executable: Self.python)
        #expect(cases.stdout == "\(folder)/p.test.yaml 2\n\(folder)/p.test.yaml 5\n", "\(cases.stdout)\(cases.stderr)")
    }
}
