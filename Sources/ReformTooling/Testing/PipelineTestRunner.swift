import ReformConcurrency
package import ReformEngine
import ReformSDK
import ReformYAML

/// Runs test cases: each run replays its fixtures (or reads its input files) offline, writes its
/// outputs and dead-letter file into a temporary folder, and is compared with what the test expects.
package struct PipelineTestRunner: Sendable {
    /// Whether golden files are rewritten from the actual output instead of compared (`--update`).
    package var update: Bool
    /// The environment `${VAR}` references resolve from.
    package var environment: [String: String]

    /// A runner that compares (or, with `update`, rewrites) golden files.
    package init(update: Bool, environment: [String: String]) {
        self.update = update
        self.environment = environment
    }

    /// Runs `test` against `pipeline` (loaded from the test file's `pipeline:`).
    package func run(_ test: PipelineTestCase, of pipeline: Pipeline) -> PipelineTestResult {
        if let reason = test.skip {
            var result = PipelineTestResult(pipeline: pipeline.name, test: test.name)
            result.skipped = reason
            result.line = test.location.line
            return result
        }
        let started = MonotonicClock.now()
        var result = check(test, of: pipeline)
        result.milliseconds = Int(saturating: ((MonotonicClock.now() - started) * 1000).rounded())
        result.line = test.location.line
        return result
    }

    private func check(_ test: PipelineTestCase, of pipeline: Pipeline) -> PipelineTestResult {
        var result = PipelineTestResult(pipeline: pipeline.name, test: test.name)
        if test.live {
            result.failures.append(
                "'live: true' is not supported: tests run offline; record fixtures with 'reform run --record' and replay them")
            return result
        }
        let folder: ScratchFolder
        do { folder = try ScratchFolder(prefix: "reform-test") } catch {
            result.failures.append(error.description)
            return result
        }
        defer { folder.remove() }
        var options = RunOptions()
        options.runName = test.run
        options.params = test.params
        options.inputs = test.inputs
        options.format = test.format
        options.outputPath = folder.file("stdout")
        options.outputFolder = folder.file("files")
        options.deadLetterPath = folder.file("dead-letter.ndjson")
        options.colour = false
        options.environment = environment
        let summary: RunSummary
        do { summary = try Runner(pipeline: pipeline, options: options).run() } catch {
            if let expected = test.expect.error {
                if !error.description.contains(expected) {
                    result.failures.append("the run failed, but not with '\(expected)':\n    \(error.description)")
                }
            } else {
                result.failures.append("the run failed: \(error.description)")
            }
            return result
        }
        if let expected = test.expect.error {
            result.failures.append("expected the run to fail with '\(expected)', but it finished: \(summary.description)")
        }
        var check = TestCheck(update: update)
        if let output = test.expect.output { check.output(output, actualPath: folder.file("stdout"), name: "standard output") }
        for (declared, output) in test.expect.outputs {
            let relative = declared.hasPrefix("/") ? String(declared.dropFirst()) : declared
            check.output(output, actualPath: FilePaths.resolve(relative, against: folder.file("files")), name: declared)
        }
        check.requests(test.expect.requests, actual: summary.requests)
        check.stopped(test.expect.stopped, actual: summary.stopped.map { ($0.manager, $0.reason.description) })
        check.deadLetter(test.expect, path: folder.file("dead-letter.ndjson"))
        if let counts = test.expect.counts { check.counts(counts, summary: summary) }
        result.failures += check.failures
        result.updated = check.updated
        return result
    }
}
