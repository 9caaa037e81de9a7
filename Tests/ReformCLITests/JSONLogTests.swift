import Foundation
import ReformTestSupport
import Testing

/// With `--log-format json` every line `reform run` writes on standard error is a JSON log line:
/// the engine's log, what each API manager did, the summary (counts as numbers) and the final
/// error (at level `error`, with its code), each with an RFC 3339 time in milliseconds (issue 42:
/// the summary and the error were plain text, every value a string, times in whole seconds).
@Suite(.timeLimit(.minutes(10))) struct JSONLogTests {
    /// Each stderr line of `result`, parsed; an issue for a line that is not a JSON object.
    func lines(of result: CLIRunner.Result) -> [[String: Any]] {
        result.stderr.split(separator: "\n").compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if object == nil { Issue.record("not a JSON log line: \(line)") }
            return object
        }
    }

    func expectTimeAndLevel(_ line: [String: Any]) {
        let time = line["time"] as? String ?? ""
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "time \(time)")
        #expect(line["level"] is String && line["message"] is String, "\(line)")
    }

    @Test func aPassingRunLogsItsCheckpointsPagingAndSummaryAsJSON() async throws {
        let folder = Scratch.folder + "/json-log-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The shipped incremental pipeline, writing into the scratch folder (its output path is
        // relative to the working folder, the checkout's root here), with its fixtures.
        let shipped = try String(contentsOfFile: CLIRunner.projectRoot + "/Pipelines/github-incremental.yaml", encoding: .utf8)
        let pipeline = shipped.replacingOccurrences(of: "path: out/github-issues.ndjson", with: "path: \(folder)/out/issues.ndjson")
            .replacingOccurrences(
                of: "fixtures: fixtures/github/incremental",
                with: "fixtures: \(CLIRunner.projectRoot)/Pipelines/fixtures/github/incremental")
        #expect(pipeline.contains(folder) && pipeline.contains("/Pipelines/fixtures/github/incremental"))
        try pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let result = try await CLIRunner.run([
            "run", folder + "/p.yaml", "--log-format", "json", "-v", "--state", folder + "/state.json", "--allow-outside-paths",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = lines(of: result)
        for line in lines { expectTimeAndLevel(line) }
        let checkpoint = try #require(lines.first { $0["message"] as? String == "checkpoint saved" })
        #expect(checkpoint["records"] is Int, "a count is a number: \(checkpoint)")
        let paging = try #require(lines.first { $0["manager"] as? String == "issues" })
        #expect(paging["pages"] as? Int == 6 && paging["requests"] as? Int == 6, "\(paging)")
        let summary = try #require(lines.last)
        #expect(summary["level"] as? String == "info")
        #expect(summary["in"] as? Int == 24 && summary["out"] as? Int == 24 && summary["rejected"] as? Int == 0, "\(summary)")
    }

    @Test func aFailingRunLogsItsErrorAtLevelErrorWithItsCode() async throws {
        let unknownRun = try await CLIRunner.run(["run", "Pipelines/property-list.yaml", "--run", "nope", "--log-format", "json"])
        #expect(unknownRun.status == 64)
        let error = try #require(lines(of: unknownRun).first)
        expectTimeAndLevel(error)
        #expect(error["level"] as? String == "error" && error["code"] as? String == "no-such-run", "\(error)")

        let invalid = try await CLIRunner.run(["run", "-", "--log-format", "json"], stdin: "reform: 1\n")
        #expect(invalid.status == 64, "'-' is a usage error: \(invalid.stderr)")

        let folder = Scratch.folder + "/json-log-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "reform: 1\nmanagers: { a: {} }\nrunz: {}\n".write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let badPipeline = try await CLIRunner.run(["run", folder + "/p.yaml", "--log-format", "json"])
        #expect(badPipeline.status == 2)
        let loadError = try #require(lines(of: badPipeline).first)
        #expect(loadError["code"] as? String == "invalid-pipeline")
        #expect((loadError["message"] as? String)?.contains("unknown key 'runz'") == true, "\(loadError)")
    }

    /// The argument parser's own errors (a mistyped option, an unknown command, a validation
    /// failure) come before any run; under `--log-format json` they are JSON lines too.
    @Test func usageErrorsAreJSONLinesWithCodeUsage() async throws {
        for arguments in [
            ["run", "Pipelines/catalog.yaml", "--log-format", "json", "--jbos", "2"], ["rn", "x", "--log-format=json"],
            ["run", "-", "--log-format", "json"],
        ] {
            let result = try await CLIRunner.run(arguments, stdin: "reform: 1\n")
            #expect(result.status == 64, "\(arguments)")
            let parsed = lines(of: result)
            #expect(parsed.count == 1, "\(arguments): \(result.stderr)")
            let error = try #require(parsed.first)
            expectTimeAndLevel(error)
            #expect(error["level"] as? String == "error" && error["code"] as? String == "usage", "\(error)")
            #expect(error["exit_status"] as? Int == 64, "\(error)")
        }
        let typo = try await CLIRunner.run(["run", "Pipelines/catalog.yaml", "--log-format", "json", "--jbos", "2"])
        #expect(typo.stderr.contains(#""message":"Unknown option '--jbos'. Did you mean '--jobs'?""#), "\(typo.stderr)")
        // Without it, the parser's text and usage line as before.
        let text = try await CLIRunner.run(["run", "Pipelines/catalog.yaml", "--jbos", "2"])
        #expect(text.stderr.hasPrefix("Error: Unknown option '--jbos'. Did you mean '--jobs'?\nUsage: reform run"))
    }
}
