import ReformEngine

/// How one test case went.
package struct PipelineTestResult: Sendable {
    /// The pipeline's name.
    package var pipeline: String
    /// The test's name.
    package let test: String
    /// What did not match, each a message followed by diff lines; empty when the test passed.
    package var failures: [String] = []
    /// Golden files `--update` rewrote.
    package var updated: [String] = []
    /// How long the test took, in milliseconds.
    package var milliseconds = 0
    /// Why the test was skipped, when it was (it did not run).
    package var skipped: String?
    /// The line of the test file its test starts on.
    package var line: Int?

    /// A result for `test` of `pipeline`.
    package init(pipeline: String, test: String) {
        self.pipeline = pipeline
        self.test = test
    }

    /// Whether everything matched (a skipped test did not run, so it did not pass).
    package var passed: Bool { failures.isEmpty && skipped == nil }
}
