import Foundation
import ReformTestSupport
import Testing

/// Ctrl-C, SIGTERM and SIGHUP in the middle of a batch run: no output is written, the dead-letter
/// file keeps what was rejected so far, and no temporary file is left (reliability audit D3, D17).
@Suite("Interrupted batch runs", .timeLimit(.minutes(10)))
struct InterruptedBatchTests {
    static let yaml = """
        reform: 1
        managers: { a: {}, b: {} }
        reformers: { list: { keys: { id: kID }, from: { a: { id: id }, b: { id: id } } } }
        runs: { default: { reform: [list], output: { format: ndjson } } }
        """

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalKeepsTheDeadLettersAndWritesNoOutput(signal: Int32) async throws {
        let folder = try TemporaryFolder()
        let pipeline = try folder.write("p.yaml", InterruptedBatchTests.yaml)
        try folder.write("a.ndjson", "{\"id\":1}\nnot json\n{\"name\":\"no id\"}\n{\"id\":4}\n")
        try folder.write("out.ndjson", "old output\n")
        // Manager b reads a FIFO nobody writes to yet: the run has landed a (two rejected) and
        // waits there when the signal comes.
        let fifo = folder.path + "/b.ndjson"
        try #require(mkfifo(fifo, 0o600) == 0)
        let errors = open(folder.path + "/stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(errors) }
        let pid = try Spawn.start(
            [
                ReformBinary.path, "run", pipeline, "--input", "a=" + folder.path + "/a.ndjson", "--input", "b=" + fifo,
                "--output", folder.path + "/out.ndjson", "--dead-letter", folder.path + "/dead.ndjson",
            ],
            stdout: errors, stderr: errors, environment: ["PATH=/usr/bin:/bin"])
        try await waitUntil { FileManager.default.contentsOfDirectory(folder.path).contains { $0.hasPrefix(".dead.ndjson.reform-") } }
        kill(pid, signal)
        let status = try await Spawn.exitStatus(of: pid)
        #expect(status == 128 + signal)
        let stderr = try folder.read("stderr.txt")
        #expect(stderr.contains("reform: interrupted: no output written (outputs are atomic)"), "\(stderr)")
        #expect(!stderr.contains("requests cancelled"), "a batch run made no request (issue 42): \(stderr)")
        #expect(stderr.contains("2 rejected so far kept in \(folder.path)/dead.ndjson"), "\(stderr)")
        #expect(try folder.read("out.ndjson") == "old output\n")
        let dead = try folder.read("dead.ndjson").split(separator: "\n")
        #expect(dead.count == 2)
        #expect(dead.first?.contains("\"input\":\"\(folder.path)/a.ndjson:2\"") == true)
        #expect(
            FileManager.default.contentsOfDirectory(folder.path).sorted() == [
                "a.ndjson", "b.ndjson", "dead.ndjson", "out.ndjson", "p.yaml", "stderr.txt",
            ])
    }

    /// Records a run printed to standard output before the signal stay printed: the message said
    /// "no output written" after thousands of rows had been shown (issue 42).
    @Test func aSignalAfterRecordsWerePrintedSaysTheyStay() async throws {
        let folder = try TemporaryFolder()
        let pipeline = try folder.write("p.yaml", InterruptedBatchTests.yaml)
        // Enough records that standard output's buffer fills and is written before b blocks.
        try folder.write("a.ndjson", (1...200_000).map { "{\"id\":\($0)}\n" }.joined())
        let fifo = folder.path + "/b.ndjson"
        try #require(mkfifo(fifo, 0o600) == 0)
        let output = open(folder.path + "/stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let errors = open(folder.path + "/stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer {
            close(output)
            close(errors)
        }
        let pid = try Spawn.start(
            [ReformBinary.path, "run", pipeline, "--input", "a=" + folder.path + "/a.ndjson", "--input", "b=" + fifo],
            stdout: output, stderr: errors, environment: ["PATH=/usr/bin:/bin"])
        // Manager a's records are printed as its buffer fills, before b's FIFO blocks.
        try await waitUntil { (try? folder.read("stdout.txt"))?.contains(#"{"kID":2}"#) == true }
        // (b's FIFO is opened once a is read: the run is waiting there now or soon.)
        kill(pid, SIGINT)
        #expect(try await Spawn.exitStatus(of: pid) == 128 + SIGINT)
        let stderr = try folder.read("stderr.txt")
        #expect(
            stderr.contains("reform: interrupted: what standard output already showed stays; no file output written"), "\(stderr)")
        #expect(!stderr.contains("requests cancelled"), "\(stderr)")
    }

    /// Polls `condition` every 20 ms for up to 20 s.
    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out waiting")
    }
}

extension FileManager {
    /// The names in `path`, or none when it cannot be read.
    fileprivate func contentsOfDirectory(_ path: String) -> [String] {
        (try? contentsOfDirectory(atPath: path)) ?? []
    }
}
