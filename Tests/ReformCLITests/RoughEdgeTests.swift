import Foundation
import ReformTestSupport
import Testing

/// The smaller defects of the reliability audit (D24), each pinned through the command line.
@Suite("Rough edges", .timeLimit(.minutes(10)))
struct RoughEdgeTests {
    /// A fresh folder with `files` written into it.
    func folder(_ files: [String: String]) throws -> String {
        let path = Scratch.path("edges")
        for (name, text) in files {
            let file = path + "/" + name
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }
        return path
    }

    @Test func anInvalidTestFileIsNotAlsoReportedAsMissing() async throws {
        let dir = try folder([
            "p.yaml": "reform: 1\nmanagers: { m: {} }\n",
            "p.test.yaml": "tests:\n  - name: x\n    runn: default\n",
        ])
        let result = try await CLIRunner.run(["test", dir])
        #expect(result.status == 2)
        #expect(result.stderr.contains("p.test.yaml:3:5: error: unknown key 'runn' in a test"), "\(result.stderr)")
        #expect(!result.stdout.contains("no tests"), "\(result.stdout)")
    }

    @Test func aTildeInPluginPathsSaysToUseTheEnvironment() async throws {
        let dir = try folder(["p.yaml": "reform: 1\nplugin_paths: [~/src]\nmanagers: { m: {} }\n"])
        let result = try await CLIRunner.run(["validate", dir + "/p.yaml"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("p.yaml:2:15: error: '~/src' in 'plugin_paths': '~' is not expanded here"), "\(result.stderr)")
        #expect(result.stderr.contains("set REFORM_PLUGIN_PATH=~/src in the shell instead"))
    }

    @Test func aMissingPluginWithNoFolderToSearchSaysSo() async throws {
        let dir = try folder([
            "p.yaml": "reform: 1\nmanagers: { m: {} }\nreformers: { t: { plugin: NoSuchPlugin } }\nruns: { default: { reform: [t] } }\n"
        ])
        let result = try await ReformProcess.run(["validate", "p.yaml"], in: dir)
        #expect(
            result.stderr.contains("no plugin 'NoSuchPlugin' (no plugin folder exists: no 'plugin_paths', no REFORM_PLUGIN_PATH"),
            "\(result.stderr)")
    }

    @Test func aParameterThatIsNotUTF8IsRefused() async throws {
        // Through a shell: Swift's own arguments cannot carry invalid UTF-8 (they would send U+FFFD).
        let script = #"exec "$0" run Pipelines/property-list.yaml --param "$(printf 'city=sh\377x')""#
        let result = try await CLIRunner.run(["-c", script, CLIRunner.executable], executable: "/bin/sh")
        #expect(result.status == 64)
        #expect(result.stderr.contains("--param value #1 is not valid UTF-8"), "\(result.stderr)")
    }

    @Test func aWriteErrorNamesTheOutputNotAManager() async throws {
        let result = try await CLIRunner.run(["run", "Pipelines/property-list.yaml", "--format", "ndjson", "--output", "/dev/full"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("reform: error: /dev/full: write failed: No space left on device"), "\(result.stderr)")
        #expect(!result.stderr.contains("manager '"), "\(result.stderr)")
    }

    @Test func closedStandardStreamsAreRefusedWithWhatToDo() async throws {
        let noStdin = #"exec "$0" run Pipelines/property-list.yaml --input zufang=- <&-"#
        let input = try await CLIRunner.run(["-c", noStdin, CLIRunner.executable], executable: "/bin/sh")
        #expect(input.status == 64)
        #expect(
            input.stderr.contains("--input MANAGER=- reads standard input, which is closed; pipe records in, or give a file"),
            "\(input.stderr)")
        let noStdout = #"exec "$0" run Pipelines/property-list.yaml >&-"#
        let output = try await CLIRunner.run(["-c", noStdout, CLIRunner.executable], executable: "/bin/sh")
        #expect(output.status == 64)
        #expect(
            output.stderr.contains("standard output is closed, and the run writes an output there; give --output PATH"), "\(output.stderr)")
    }

    /// On a terminal, stdout and stderr are one screen: the progress line (stderr) must be gone
    /// before the table (stdout) starts, or its first line reads `…9,241 records/sdate      label`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func theProgressLineIsClearedBeforeTheTableIsWritten() async throws {
        let command = "\(CLIRunner.executable) run Pipelines/reminders.yaml"
        let screen = try await CLIRunner.run(["-qec", command, "/dev/null"], executable: "/usr/bin/script").stdout
        #expect(screen.contains("records/s"), "no progress line was shown: \(screen.debugDescription)")
        let header = try #require(screen.range(of: "date      label"), "\(screen.debugDescription)")
        let lineStart = screen[..<header.lowerBound].lastIndex(of: "\n").map { screen.index(after: $0) } ?? screen.startIndex
        // What the terminal shows before the header on its line: the text after the last carriage
        // return, with erase-line sequences taken out.
        let shown = screen[lineStart..<header.lowerBound].split(separator: "\r", omittingEmptySubsequences: false).last ?? ""
        #expect(shown.replacingOccurrences(of: "\u{1B}[K", with: "") == "", "\(screen.prefix(400).debugDescription)")
    }

    /// `reform run … | head -1` on a terminal: standard output is a pipe whose reader prints on the
    /// same screen, then goes away (SIGPIPE). The progress line is erased before the output lands
    /// under it; it used to stay, with head's line glued to its end.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func theProgressLineIsErasedBeforeAPipedReaderPrints() async throws {
        let folder = Scratch.folder + "/piped-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let record = #"{"id": 1, "name": "a home", "title": "\#(String(repeating: "t", count: 200))", "imageUrl": "https://x/1.jpg"}"#
        try String(repeating: record + "\n", count: 30_000).write(toFile: folder + "/z.ndjson", atomically: true, encoding: .utf8)
        let command =
            "\(CLIRunner.executable) run Pipelines/property-list.yaml --format ndjson --input zufang=\(folder)/z.ndjson "
            + "--allow-outside-paths | head -1"
        let screen = try await CLIRunner.run(["-qec", command, "/dev/null"], executable: "/usr/bin/script").stdout
        let progress = try #require(screen.range(of: "records/s", options: .backwards), "no progress line: \(screen.prefix(300))")
        let output = try #require(screen.range(of: #"{"kPropertyListDataKeyID""#), "\(screen.prefix(300))")
        #expect(progress.upperBound < output.lowerBound, "\(screen.prefix(400).debugDescription)")
        #expect(screen[progress.upperBound..<output.lowerBound].contains("\r\u{1B}[K"), "\(screen.prefix(400).debugDescription)")
    }

    /// The README's `reform validate Pipelines/*.yaml` takes in the `*.test.yaml` files too: each is
    /// checked as a test file, not reported as a pipeline with 3 false errors.
    @Test func validateChecksTestFilesAsTestFiles() async throws {
        // Pipelines/listings-plugins.yaml loads the shipped plugins: build them first, as the
        // plugin tests do (a fresh clone's `swift test` has not built them yet).
        let failures = await PluginBuilds.failures
        try #require(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        let shipped = try FileManager.default.contentsOfDirectory(atPath: CLIRunner.projectRoot + "/Pipelines")
            .filter { $0.hasSuffix(".yaml") }.sorted().map { "Pipelines/" + $0 }
        #expect(shipped.contains("Pipelines/orders.test.yaml"))
        let all = try await CLIRunner.run(["validate"] + shipped)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stderr == "")
        #expect(all.stdout.contains("Pipelines/orders.test.yaml: ok (3 tests of Pipelines/orders.yaml)\n"), "\(all.stdout)")
        #expect(all.stdout.contains("Pipelines/orders.yaml: ok ("))

        let dir = try folder([
            "p.yaml": "reform: 1\nmanagers: { m: {} }\nruns: { default: {}, rows: {} }\n",
            "p.test.yaml": """
            tests:
              - name: typo
                run: rowz
                expect: { counts: { in: 0 } }
              - name: an unknown run on purpose
                run: nope
                expect: { error: "no run called 'nope'" }
              - name: bad key
                runn: default
                expect: {}

            """,
            "orphan.test.yaml": "tests:\n  - name: x\n    expect: {}\n",
        ])
        let bad = try await ReformProcess.run(["validate", "p.test.yaml", "orphan.test.yaml"], in: dir)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("p.test.yaml:9:5: error: unknown key 'runn' in a test"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("'nope'"), "\(bad.stderr)")
        #expect(
            bad.stderr.contains(
                "orphan.test.yaml:1:1: error: the pipeline this file tests, orphan.yaml, does not exist; "
                    + "write it, or name the pipeline with 'pipeline: PATH'"),
            "\(bad.stderr)")
        let typo = try await ReformProcess.run(
            ["validate", "p.test.yaml"],
            in: try folder([
                "p.yaml": "reform: 1\nmanagers: { m: {} }\nruns: { default: {}, rows: {} }\n",
                "p.test.yaml": "tests:\n  - name: typo\n    run: rowz\n    expect: { counts: { in: 0 } }\n",
            ]))
        #expect(typo.status == 2)
        #expect(
            typo.stderr.contains(
                "p.test.yaml:3:10: error: test 'typo' runs 'rowz', which p.yaml does not have; did you mean 'rows'? (runs: default, rows)"),
            "\(typo.stderr)")
    }

    /// `-` is standard output, as for `--input MANAGER=-` and every Unix tool; it wrote a file named `-`.
    @Test func outputDashIsStandardOutput() async throws {
        let dir = try folder([
            "p.yaml": "reform: 1\nmanagers: { m: {} }\nruns: { default: { output: { format: ndjson } } }\n",
            "in.ndjson": "{\"a\":1}\n",
        ])
        let result = try await ReformProcess.run(["run", "p.yaml", "--input", "m=in.ndjson", "--output", "-", "--quiet"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"a\":1}\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/-"), "a file named '-' was written")
    }

    /// `reform validate -` reads the pipeline from standard input (an editor or a generator pipes
    /// it in); its relative paths are relative to the working folder.
    @Test func validateDashReadsStandardInput() async throws {
        let pipeline = try String(contentsOfFile: CLIRunner.projectRoot + "/Pipelines/orders.yaml", encoding: .utf8)
            .replacingOccurrences(of: "fixtures: fixtures/", with: "fixtures: Pipelines/fixtures/")
        let valid = try await CLIRunner.run(["validate", "-"], stdin: pipeline)
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout == "<stdin>: ok (2 managers, 3 reformers, 2 runs)\n")
        let invalid = try await CLIRunner.run(["validate", "-"], stdin: "reform: 1\nmanagers: { m: {} }\nrunz: {}\n")
        #expect(invalid.status == 2)
        #expect(
            invalid.stderr.hasPrefix("<stdin>:3:1: error: unknown key 'runz' in the pipeline; did you mean 'runs'?"), "\(invalid.stderr)")
    }

    /// `--param cty=x` was silently ignored (and the run used its own city): now it fails and says
    /// which managers take which parameters, as a usage error (64, as a mistyped option; it was
    /// 1, a failed run, issue 42).
    @Test func aMistypedParamIsAnErrorWithDidYouMean() async throws {
        let result = try await CLIRunner.run(["run", "Pipelines/property-list.yaml", "--param", "cty=beijing"])
        #expect(result.status == 64)
        #expect(
            result.stderr
                == "reform: error: --param 'cty' is not a parameter of any manager of run 'default'; did you mean 'city'? "
                + "(zufang, xinfang and ershoufang take city, page_size)\n")
        #expect(result.stdout == "")
    }

    /// `reform rn` said `2 unexpected arguments`; a mistyped command now names the right one.
    @Test func aMistypedCommandSuggestsTheRightOne() async throws {
        let usage = "Usage: reform <subcommand>\n  See 'reform --help' for more information.\n"
        let typo = try await CLIRunner.run(["rn", "Pipelines/property-list.yaml"])
        #expect(typo.status == 64)
        #expect(
            typo.stderr
                == "Error: unknown command 'rn'; did you mean 'run'? Choose one of: init, studio, run, validate, test, cat, keys, plugins, state, show, schema\n"
                + usage)
        let validate = try await CLIRunner.run(["valdiate"])
        #expect(validate.stderr.hasPrefix("Error: unknown command 'valdiate'; did you mean 'validate'?"), "\(validate.stderr)")
        let unknown = try await CLIRunner.run(["frobnicate"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.hasPrefix("Error: unknown command 'frobnicate'. Choose one of: init, studio, run, validate, test, cat"),
            "\(unknown.stderr)")
        #expect(try await CLIRunner.run(["help", "run"]).status == 0)
    }

    /// A `.json` file is one document: a second one, trailing text or nothing at all was accepted
    /// (several documents belong in `.ndjson`/`.jsonl`). `reform run` stops with exit 1 (a damaged
    /// input: nothing written), `reform cat` with exit 2, both at the line and column.
    @Test func aJSONFileHoldsExactlyOneDocument() async throws {
        let dir = try folder([
            "p.yaml": "reform: 1\nmanagers: { m: {} }\nruns: { default: { output: { format: ndjson, path: out.ndjson } } }\n",
            "value-then-text.json": #"{"a":true}"x""#,
            "two-arrays.json": "[][]",
            "two-lines.json": "{\"a\":1}\n{\"a\":2}\n",
            "empty.json": "",
        ])
        let cases = [
            ("value-then-text.json", "1:11: text after the JSON value"), ("two-arrays.json", "1:3: text after the JSON array"),
            ("two-lines.json", "2:1: text after the JSON value"), ("empty.json", "1:1: the file is empty"),
        ]
        for (file, problem) in cases {
            let run = try await ReformProcess.run(["run", "p.yaml", "--input", "m=\(file)"], in: dir)
            #expect(run.status == 1, "\(file): \(run.stderr)")
            #expect(run.stderr.contains("reform: error: manager 'm': \(file):\(problem)"), "\(file): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.ndjson"))
            let cat = try await ReformProcess.run(["cat", file], in: dir)
            #expect(cat.status == 2, "\(file): \(cat.stderr)")
            #expect(cat.stderr.hasPrefix("\(file):\(problem.prefix(4))"), "\(file): \(cat.stderr)")
            #expect(cat.stdout == "")
        }
        let lines = try await ReformProcess.run(["cat", "--to", "ndjson", "-"], stdin: "{\"a\":1}\n{\"a\":2}\n", in: dir)
        #expect(lines.stdout == "{\"a\":1}\n{\"a\":2}\n", "standard input may still hold several documents")
    }

    /// Output paths are relative to the working folder, `fixtures:` to the pipeline file: a user
    /// who runs from another folder needs to be told, in `--help` and not only in the docs.
    @Test func runHelpSaysWhatPathsAreRelativeTo() async throws {
        let help = try await CLIRunner.run(["run", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            text.contains(
                "Paths: --input, --output, --dead-letter, --state and the outputs' 'path:' are relative to the working folder; "
                    + "'fixtures:' and 'plugin_paths:' are relative to the pipeline file."),
            "\(help.stdout)")
        #expect(text.contains("--output <output> Write the output to PATH (relative to the working folder, atomically)"), "\(help.stdout)")
    }
}
