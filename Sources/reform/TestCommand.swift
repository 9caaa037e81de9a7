import ArgumentParser
import ReformEngine
import ReformTooling
import ReformYAML

/// `reform test`: run the tests declared beside pipelines (`NAME.test.yaml`) offline and report
/// like a test runner.
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run pipeline tests (NAME.test.yaml) offline: golden outputs, request sequences, errors, dead letters.",
        discussion: """
            Exit codes: 0 every test passed (or was skipped: skip: REASON in the test file); 1 a test failed \
            (or a pipeline has no tests); 2 a test file is invalid (file:line:column on stderr).
            """)

    @Argument(help: "Pipeline files, test files (NAME.test.yaml) or folders searched recursively.", completion: .file())
    var paths: [String]

    @OptionGroup var load: LoadOptions

    @Flag(help: "Rewrite golden files from the actual output instead of comparing (only golden files).")
    var update = false

    @Option(help: "Run only tests whose 'pipeline › test' name contains NAME.")
    var filter: String?

    @Option(
        help: ArgumentHelp(
            "Also write a JUnit XML report to PATH (relative to the working folder) for CI dashboards: a suite per test file.",
            valueName: "PATH"), completion: .file())
    var junit: String?

    @Flag(help: "Run the tests again whenever a file under the given paths or an --env-file changes, until Ctrl-C.")
    var watch = false

    func validate() throws {
        if watch, update {
            throw ValidationError("--watch runs again and again; it cannot go with --update (it writes the files it watches)")
        }
        if watch, junit != nil { throw ValidationError("--watch runs again and again; write a JUnit report without it") }
    }

    func run() throws {
        guard watch else { return try runOnce() }
        try WatchedFiles.repeating(quiet: false, files: { WatchedFiles(paths: paths + load.envFiles) }, runOnce)
    }

    /// The tests once, with everything the command says of them.
    private func runOnce() throws {
        let found = TestDiscovery(paths: paths)
        for path in found.missing { Terminal.error("reform: error: \(path): no such file or folder") }
        var invalid = !found.missing.isEmpty
        var invalidFiles = 0
        var passed = 0
        var failed = 0
        var skipped = 0
        var updated: [String] = []
        var tested: Set<String> = []
        var junitReport = JUnitReport()
        // What the tests read, which the JUnit report must not replace.
        var reads = (found.testFiles + found.pipelines).map { PathCollisions.Role(path: $0, what: "a file reform test reads") }
        let runner = PipelineTestRunner(update: update, environment: load.environment)
        for path in found.testFiles {
            let file: PipelineTestFile
            do {
                file = try PipelineTestLoader(environment: load.environment, allowOutsidePaths: load.allowOutsidePaths).load(path: path)
            } catch {
                Terminal.error(error.description)
                junitReport.addInvalid(
                    file: path, name: Self.name(of: PipelineTestFile.defaultPipeline(for: path)), reason: error.description)
                invalid = true
                invalidFiles += 1
                // The pipeline has a test file (an invalid one, reported above), not none.
                tested.insert(PipelineTestFile.defaultPipeline(for: path))
                continue
            }
            tested.insert(file.pipeline)
            reads += TestCommand.files(of: file).map { PathCollisions.Role(path: $0, what: "a file of \(path)") }
            let pipeline: Result<Pipeline, PipelineLoadError> = Result {
                () throws(PipelineLoadError) in try load.loader().load(path: file.pipeline)
            }
            // A pipeline without `name:` is named after its file, as it is when it does not load.
            let pipelineName = (try? pipeline.get().name).flatMap { $0.isEmpty ? nil : $0 } ?? Self.name(of: file.pipeline)
            for test in file.cases where selected("\(pipelineName) › \(test.name)") {
                var result: PipelineTestResult
                switch pipeline {
                case .success(let loaded):
                    result = runner.run(test, of: loaded)
                    result.pipeline = pipelineName
                case .failure(let error):
                    result = PipelineTestResult(pipeline: pipelineName, test: test.name)
                    result.failures = ["the pipeline does not load:\n" + error.description]
                    result.line = test.location.line
                }
                report(result)
                junitReport.add(result, file: path)
                if result.skipped != nil {
                    skipped += 1
                } else if result.passed {
                    passed += 1
                } else {
                    failed += 1
                }
                updated += result.updated
            }
        }
        if filter == nil {
            for pipeline in found.pipelines where !tested.contains(pipeline) {
                let name = Self.name(of: pipeline)
                let reason = "no tests: write \(String(pipeline.dropLast(5))).test.yaml beside it"
                print("FAIL \(name) › (\(reason))")
                junitReport.addUntested(pipeline: pipeline, name: name, reason: reason)
                failed += 1
            }
        }
        for path in updated { print("updated \(path)") }
        // An invalid test file ran no test: "0 passed, 0 failed" alone read as nothing to do.
        let unread = invalidFiles == 0 ? "" : ", \(invalidFiles) test file\(invalidFiles == 1 ? "" : "s") invalid (not run)"
        print("\(passed) passed, \(failed) failed\(skipped == 0 ? "" : ", \(skipped) skipped")\(unread)")
        if let junit {
            var paths = PathCollisions()
            paths.writes = [PathCollisions.Role(path: junit, what: "--junit")]
            paths.reads = reads
            do { try paths.check(unwritten: "the report was not written") } catch {
                Terminal.error("reform: error: \(error.message)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
            do { try junitReport.write(to: junit) } catch {
                Terminal.error("reform: error: the JUnit report: \(error.description)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
        }
        if invalid { throw ExitCode(ExitStatus.invalid.rawValue) }
        // Skipped tests fail nothing, but a run where nothing ran at all proves nothing.
        if failed > 0 || passed + skipped == 0 { throw ExitCode(ExitStatus.runFailed.rawValue) }
    }

    /// The files a test file's tests read: the file, its pipeline, inputs and golden files.
    private static func files(of file: PipelineTestFile) -> [String] {
        var files = [file.file, file.pipeline]
        for test in file.cases {
            files += test.inputs.map(\.path)
            for case .golden(let golden)? in [test.expect.output] + test.expect.outputs.map(\.expected) { files.append(golden) }
        }
        return files
    }

    /// `Pipelines/orders.yaml` → `orders`.
    private static func name(of path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return file.hasSuffix(".yaml") ? String(file.dropLast(5)) : file
    }

    private func selected(_ name: String) -> Bool {
        filter.map { name.contains($0) } ?? true
    }

    private func report(_ result: PipelineTestResult) {
        if let reason = result.skipped {
            print("SKIP \(result.pipeline) › \(result.test): \(reason)")
            return
        }
        print("\(result.passed ? "PASS" : "FAIL") \(result.pipeline) › \(result.test) (\(result.milliseconds) ms)")
        for failure in result.failures {
            print(failure.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
        }
    }
}
