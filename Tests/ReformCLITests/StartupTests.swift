import ReformTestSupport
import Testing

/// What every `reform` start pays before it reads a pipeline: the shared libraries it loads.
@Suite("Startup", .timeLimit(.minutes(10)))
struct StartupTests {
    /// The engine and the CLI use FoundationEssentials alone. Loading Foundation as well drags in
    /// FoundationInternationalization and ICU (~53 MB of libraries): measured 5-7 ms more of every
    /// run's start (a 200,000-record chain run takes ~230 ms), and the start is the one part
    /// `--jobs` cannot share between cores. A plugin that imports Foundation still loads it, when
    /// its run loads the plugin.
    @Test func loadsNeitherFoundationNorICU() async throws {
        let result = try await CLIRunner.run(["--version"], environment: ["LD_DEBUG": "libs"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("libFoundationEssentials.so"), "LD_DEBUG=libs lists the libraries loaded")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!result.stderr.contains(library), "reform --version loaded \(library)")
        }
    }
}
