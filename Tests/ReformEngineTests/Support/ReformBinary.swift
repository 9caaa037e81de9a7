import ReformTestSupport

/// The `reform` binary built beside the tests, run as a user would from the project root
/// (``ReformProcess``, shared with the CLI tests).
enum ReformBinary {
    /// What a run of the binary printed and how it ended.
    typealias Outcome = ReformProcess.Outcome

    /// Where the binary is.
    static var path: String { ReformProcess.executable }

    /// Runs the binary with `arguments` in `directory` (the project root by default); its
    /// environment is a plain `PATH`, `NO_COLOR` and `environment`.
    static func run(_ arguments: [String], environment: [String: String], in directory: String = ProjectRoot.path) async throws -> Outcome {
        try await ReformProcess.run(arguments, environment: environment, in: directory)
    }
}
