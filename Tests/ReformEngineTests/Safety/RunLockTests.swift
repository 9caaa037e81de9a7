import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformSystem
import Testing

/// Two runs never write the same outputs or state file at once (reliability audit round 2, H3):
/// the second is refused naming the first's pid, or waits with `--wait-lock`. (Dead-letter files
/// are not locked: runs move each other's aside rather than replace them.)
@Suite(.timeLimit(.minutes(10))) struct RunLockTests {
    /// Holds the lock another run would hold on `path` (its `.NAME.reform-lock`), as pid `pid`.
    final class HeldLock {
        let fd: Int32
        init(_ lockPath: String, pid: Int) throws {
            fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            #expect(fd >= 0)
            #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
            let text = Array("\(pid)\n".utf8)
            _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        /// Unlocks before closing: a child process another test spawns at the same moment holds a
        /// copy of the descriptor until it executes, and closing ours alone left the file locked
        /// through that copy (the next run was refused, now and then, under a full `swift test`).
        func release() {
            flock(fd, LOCK_UN)
            close(fd)
        }
    }

    static let incremental = """
        reform: 1
        name: inc
        services:
          gh: { base_url: "http://gh.test" }
        managers:
          a:
            service: gh
            path: /a
            incremental: { cursor: t, param: since, format: number, key: id }
        runs:
          default: { managers: [a], output: { format: ndjson, path: out/a.ndjson } }
        """

    @Test func aSecondIncrementalRunIsRefusedWhileAnotherHoldsTheStateFile() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.incremental)
        try harness.write("out/keep", "")
        let held = try HeldLock(harness.path("out/.inc.reform-state.json.reform-lock"), pid: 4242)
        defer { held.release() }
        let transport = ScriptedTransport()
        transport.on("/a", .json(#"[{"id": 1, "t": 5}]"#))
        do {
            _ = try await harness.run("pipeline.yaml", transport: transport)
            Issue.record("the run went ahead while another held its state file")
        } catch {
            #expect(error.code == .locked)
            #expect(error.message.hasPrefix("another run (pid 4242) is writing the state file "))
            #expect(error.message.hasSuffix("pass --wait-lock to wait for it, or give this run other outputs"))
        }
        #expect(transport.requests.isEmpty, "nothing was fetched")
        #expect(!harness.exists("out/a.ndjson"))
    }

    /// A harness with a batch pipeline writing `out.ndjson` from `in.ndjson`, and its options.
    static func batch() throws -> (RunHarness, RunOptions) {
        let harness = try RunHarness()
        try harness.write(
            "batch.yaml",
            "reform: 1\nmanagers: { m: {} }\nruns: { default: { managers: [m], output: { format: ndjson, path: out.ndjson } } }\n")
        try harness.write("in.ndjson", #"{"id": 1}"# + "\n")
        var options = RunOptions()
        options.inputs = [("m", harness.path("in.ndjson"))]
        return (harness, options)
    }

    @Test func aBatchRunIsRefusedWhileAnotherWritesItsOutput() async throws {
        let (harness, options) = try Self.batch()
        for (lockFile, what) in [(".out.ndjson.reform-lock", "output 1")] {
            let held = try HeldLock(harness.path(lockFile), pid: 77)
            defer { held.release() }
            do {
                _ = try await harness.run("batch.yaml", options: options)
                Issue.record("the run went ahead while another held \(lockFile)")
            } catch {
                #expect(error.code == .locked)
                #expect(error.message.hasPrefix("another run (pid 77) is writing \(what)"), "\(error.message)")
            }
        }
        // Released: the run goes ahead, and removes its lock files as it ends.
        let summary = try await harness.run("batch.yaml", options: options)
        #expect(summary.written.first?.count == 1)
        #expect(!harness.exists(".out.ndjson.reform-lock"))
    }

    @Test func withWaitLockTheRunWaitsForTheOtherToFinish() async throws {
        var (harness, options) = try Self.batch()
        options.waitsForLock = true
        let held = try HeldLock(harness.path(".out.ndjson.reform-lock"), pid: 78)
        let run = Task { try await harness.run("batch.yaml", options: options) }
        held.release()
        let summary = try await run.value
        #expect(summary.written.first?.count == 1)
        #expect(try harness.lines("out.ndjson") == [#"{"id":1}"#])
    }
}
