import Foundation
import ReformEngine
import ReformEngineTesting
import ReformSystem
import ReformTestSupport
import Testing

/// An incremental run whose output is not a regular file — a device such as `/dev/null`, a FIFO —
/// writes into it in place. It used to write a staging file beside it and rename that over it:
/// `reform run github-incremental.yaml --output /dev/null`, run as root, replaced the machine's
/// `/dev/null` with a regular file holding the records.
@Suite(.timeLimit(.minutes(10))) struct IncrementalSpecialOutputTests {
    /// Pipelines/github-incremental.yaml writing to standard output, with its fixtures, in `harness`.
    static func pipeline(in harness: RunHarness) throws {
        let root = ProjectRoot.path + "/Pipelines/"
        let text = try String(contentsOfFile: root + "github-incremental.yaml", encoding: .utf8)
            .replacingOccurrences(of: "output: { format: ndjson, path: out/github-issues.ndjson }", with: "output: { format: ndjson }")
        try harness.write("p.yaml", text)
        try FileManager.default.createDirectory(atPath: harness.path("fixtures/github"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "fixtures/github/incremental", toPath: harness.path("fixtures/github/incremental"))
    }

    @Test func aFIFOStaysAFIFOAndGetsTheRecords() async throws {
        let harness = try RunHarness()
        try Self.pipeline(in: harness)
        let fifo = harness.path("records.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Both ends open before the run, so that neither the run nor the reader waits for the
        // other to come; the test's own writer keeps the reader from seeing an end too soon.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        let keeper = open(fifo, O_WRONLY)
        #expect(reader >= 0 && keeper >= 0)
        _ = fcntl(reader, F_SETFL, 0)
        // Read on a thread of its own: a blocking read on the cooperative pool (two threads here)
        // held one of them until the run ended, and with another test doing the same the run
        // could not go on at all.
        let reading = Task {
            try await offPool { () -> String in
                let handle = FileHandle(fileDescriptor: reader, closeOnDealloc: true)
                return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            }
        }
        var options = RunOptions()
        options.outputPath = fifo
        options.statePath = harness.path("state.json")
        let summary = try await harness.run("p.yaml", options: options)
        close(keeper)
        let read = try await reading.value
        #expect(FileKind.of(fifo) == .fifo, "the FIFO was replaced by a regular file")
        let written = summary.written.first?.count ?? 0
        #expect(written > 0)
        #expect(read.split(separator: "\n").count == written)
        #expect(!harness.exists(".records.fifo.reform-staging"))
    }

    @Test func theDefaultStateFileIsNotPutBesideADevice() throws {
        let harness = try RunHarness()
        try Self.pipeline(in: harness)
        var options = RunOptions()
        options.outputPath = "/dev/null"
        // As for standard output: in the working folder, not /dev/.github-incremental.reform-state.json.
        #expect(StateStore.path(of: try harness.load("p.yaml"), options: options) == ".github-incremental.reform-state.json")
        options.outputPath = harness.path("out/issues.ndjson")
        #expect(
            StateStore.path(of: try harness.load("p.yaml"), options: options) == harness.path("out/.github-incremental.reform-state.json"))
    }
}
