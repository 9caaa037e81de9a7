import ReformTestSupport
import Testing

/// A run that stops before reading its standard input (a bad pipeline, `--version`) leaves the
/// writer a closed pipe: the tests' process runner must take that as the child's answer, not
/// crash the whole test process with EPIPE (it did, in a full run of 2026-11-28).
@Suite("Unread standard input", .timeLimit(.minutes(10)))
struct UnreadInputTests {
    @Test func aChildThatExitsWithoutReadingItsInputIsJustItsOutcome() async throws {
        // More than a pipe holds (64 KiB): the write is still going on when the child exits.
        let input = String(repeating: "{\"id\":1}\n", count: 50_000)
        let outcome = try await ReformProcess.run(["validate", "no-such-pipeline.yaml"], stdin: input)
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("no-such-pipeline.yaml"), "\(outcome.stderr)")
    }
}
