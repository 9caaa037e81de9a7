import ReformSDK
import ReformTestSupport
import Testing

/// `reform --version`: the release and the plugin ABI it loads, for bug reports and plugin authors.
@Suite("reform --version", .timeLimit(.minutes(10)))
struct VersionTests {
    @Test func printsTheReleaseAndThePluginABI() async throws {
        let result = try await CLIRunner.run(["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "reform 0.9.0 (plugin ABI \(ReformPluginABI.version))\n")
        #expect(result.stderr == "")
    }
}
