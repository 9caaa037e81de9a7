import ReformTestSupport
import Testing

/// Shell completion offers what a user types next: YAML files for a pipeline, format names for
/// `--format`, levels for `--log-level` (issue 17).
@Suite(.timeLimit(.minutes(10))) struct CompletionTests {
    @Test func bashCompletesPipelineFilesFormatsAndLogLevels() async throws {
        let result = try await CLIRunner.run(["--generate-completion-script", "bash"])
        #expect(result.status == 0, "\(result.stderr)")
        let script = result.stdout
        #expect(script.contains("-fX '!*.@(yaml|yml)'"), "pipeline arguments complete to YAML files")
        #expect(script.contains("'ndjson'$'\\n''json'$'\\n''table'$'\\n''csv'$'\\n''markdown'$'\\n''html'"), "--format values")
        #expect(script.contains("'trace'$'\\n''debug'$'\\n''info'"), "--log-level values")
    }
}
