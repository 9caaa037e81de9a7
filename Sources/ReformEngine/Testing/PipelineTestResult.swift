/// How one test case went.
public struct PipelineTestResult: Sendable {
    /// The pipeline's name.
    public let pipeline: String
    /// The test's name.
    public let test: String
    /// What did not match, each a message followed by diff lines; empty when the test passed.
    public var failures: [String] = []
    /// Golden files `--update` rewrote.
    public var updated: [String] = []
    /// How long the test took, in milliseconds.
    public var milliseconds = 0

    /// A result for `test` of `pipeline`.
    public init(pipeline: String, test: String) {
        self.pipeline = pipeline
        self.test = test
    }

    /// Whether everything matched.
    public var passed: Bool { failures.isEmpty }
}
