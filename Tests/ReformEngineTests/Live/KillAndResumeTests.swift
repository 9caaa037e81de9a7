import Foundation
import ReformEngine
import ReformSDK
import ReformSystem
import ReformTestSupport
import Testing

/// `kill -9` at random moments of a fan-out, paged, incremental run against the loopback
/// server's GitHub-like API: the next run continues from the last checkpoint, and the output ends
/// byte-identical to an uninterrupted run's — no record lost, none twice.
@Suite(.timeLimit(.minutes(10)), .serialized) struct KillAndResumeTests {
    static let pipeline = """
        reform: 1
        name: kills
        services:
          github: { base_url: "${TEST_URL}/gh", connections: 3 }
        managers:
          repos:
            service: github
            path: /orgs/{org}/repos
            params: { org: org-5, per_page: 2 }
            paging: { policy: link }
          issues:
            service: github
            path: /repos/{owner}/{repo}/issues
            params: { owner: { required: true }, repo: { required: true }, state: all, sort: updated, direction: asc, per_page: 4 }
            paging: { policy: link }
            for_each: { manager: repos, params: { owner: owner.login, repo: name }, concurrency: 3 }
            incremental: { cursor: updated_at, param: since, key: id, lookback: 5m, checkpoint: 1 }
        runs:
          default: { managers: [issues], output: { format: ndjson, path: out/issues.ndjson } }
        """

    /// Runs `reform run` in `folder` to its end; throws when it fails.
    static func runToEnd(in folder: String, server: TestServer) async throws {
        let outcome = try await ReformBinary.run(
            ["run", folder + "/pipeline.yaml", "--live", "--quiet"], environment: ["TEST_URL": server.url], in: folder)
        guard outcome.status == 0 else { throw ServerStartError(output: "reform failed: \(outcome.stderr)") }
    }

    /// Starts `reform run` in `folder` and kills it with SIGKILL: `milliseconds` after it
    /// started, or, with `afterBytes`, as soon as a checkpoint has saved at least that many
    /// output bytes (whatever the machine's speed). Says whether it was still running then.
    static func kill(in folder: String, server: TestServer, after milliseconds: Int, afterBytes: Int?) throws -> Bool {
        let null = open("/dev/null", O_WRONLY)
        defer { close(null) }
        let command = "cd '\(folder)' && exec '\(ReformBinary.path)' run pipeline.yaml --live --quiet"
        let pid = try Spawn.start(
            ["/bin/sh", "-c", command], stdout: null, stderr: null, environment: ["TEST_URL=\(server.url)", "PATH=/usr/bin:/bin"])
        var status: Int32 = 0
        if let afterBytes {
            let state = folder + "/out/.kills.reform-state.json"
            // Until a checkpoint has saved that much (or the run ends, or 30 s pass).
            for _ in 0..<30_000 {
                if let text = try? String(contentsOfFile: state, encoding: .utf8), text.contains("\"running\""),
                    let saved = checkpointBytes(in: text), saved >= afterBytes
                {
                    break
                }
                if waitpid(pid, &status, WNOHANG) == pid { return false }
                usleep(1000)
            }
        } else {
            usleep(useconds_t(milliseconds * 1000))
        }
        // An ended process stays (a zombie) until it is waited for: kill() alone cannot tell.
        let alive = waitpid(pid, &status, WNOHANG) == 0
        ReformSystem.kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return alive
    }

    /// Ctrl-C in the middle of a page keeps the last checkpoint (not the half page), says so, and
    /// the next run ends with the uninterrupted output.
    @Test func anInterruptedRunSaysTheNextRunResumesAndItDoes() async throws {
        let server = try TestServer()
        try await Self.prepareServer(server)
        let reference = try TemporaryFolder()
        _ = try reference.write("pipeline.yaml", Self.pipeline)
        try await Self.runToEnd(in: reference.path, server: server)
        let expected = try reference.read("out/issues.ndjson")

        let folder = try TemporaryFolder()
        _ = try folder.write("pipeline.yaml", Self.pipeline)
        let errors = open(folder.path + "/stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let command = "cd '\(folder.path)' && exec '\(ReformBinary.path)' run pipeline.yaml --live"
        let pid = try Spawn.start(
            ["/bin/sh", "-c", command], stdout: errors, stderr: errors, environment: ["TEST_URL=\(server.url)", "PATH=/usr/bin:/bin"])
        close(errors)
        var status: Int32 = 0
        for _ in 0..<30_000 {
            if let text = try? folder.read("out/.kills.reform-state.json"), text.contains("\"running\"") { break }
            if waitpid(pid, &status, WNOHANG) == pid { break }
            usleep(1000)
        }
        ReformSystem.kill(pid, SIGINT)
        waitpid(pid, &status, 0)
        let said = try folder.read("stderr.txt")
        #expect(said.contains("incremental outputs keep their last checkpoint; the next run resumes there"), "\(said)")
        try await Self.runToEnd(in: folder.path, server: server)
        #expect(try folder.read("out/issues.ndjson") == expected)
    }

    /// The output bytes a checkpoint in the state file `text` saved.
    static func checkpointBytes(in text: String) -> Int? {
        guard let running = text.firstRange(of: "\"running\""),
            let range = text[running.upperBound...].firstRange(of: "\"bytes\": ")
        else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    static func prepareServer(_ server: TestServer) async throws {
        try await server.post("/_reset")
        try await server.post("/gh/_admin/config", #"{"issues_per_repo": 18, "delay_ms": 15}"#)
    }

    /// Ten trials killed during a first run, and eight during the incremental run after the data
    /// changed; each ends equal to the uninterrupted runs.
    @Test func aKilledRunResumesToTheSameOutputAsAnUninterruptedOne() async throws {
        let server = try TestServer()
        // The uninterrupted reference: a first run, the data changes, a second (incremental) run.
        let reference = try TemporaryFolder()
        _ = try reference.write("pipeline.yaml", Self.pipeline)
        try await Self.prepareServer(server)
        try await Self.runToEnd(in: reference.path, server: server)
        let afterFirst = try String(contentsOfFile: reference.path + "/out/issues.ndjson", encoding: .utf8)
        try await server.post("/gh/_admin/advance", #"{"touch": 3, "add": 2}"#)
        try await Self.runToEnd(in: reference.path, server: server)
        let afterSecond = try String(contentsOfFile: reference.path + "/out/issues.ndjson", encoding: .utf8)
        #expect(afterFirst.split(separator: "\n").count == 90)
        #expect(afterSecond.split(separator: "\n").count == 90 + 5 * 5)

        var generator = SeededGenerator(seed: 15)
        var killedMidway = 0
        var resumedFromCheckpoint = 0
        for trial in 0..<18 {
            let folder = try TemporaryFolder()
            _ = try folder.write("pipeline.yaml", Self.pipeline)
            try await Self.prepareServer(server)
            let duringSecond = trial >= 10
            if duringSecond { try await Self.runToEnd(in: folder.path, server: server) }
            if duringSecond { try await server.post("/gh/_admin/advance", #"{"touch": 3, "add": 2}"#) }
            // Every third trial at a moment of its start; the others once a checkpoint has saved a
            // random share of what the run writes, whatever the machine's speed.
            let early = trial % 3 == 0
            let moment = Int.random(in: 5...80, using: &generator)
            let (before, after) = duringSecond ? (afterFirst.utf8.count, afterSecond.utf8.count) : (0, afterFirst.utf8.count)
            // (The last page is never a checkpoint: the run commits after it; the second run writes
            // few pages.)
            let share = Double.random(in: duringSecond ? 0.05...0.45 : 0.05...0.85, using: &generator)
            let bytes = early ? nil : before + Int(Double(after - before) * share)
            if try await offPool({ try Self.kill(in: folder.path, server: server, after: moment, afterBytes: bytes) }) { killedMidway += 1 }
            // Killed after a checkpoint: the state says where the next run goes on.
            let state = (try? folder.read("out/.kills.reform-state.json")) ?? ""
            if state.contains("\"running\"") { resumedFromCheckpoint += 1 }
            try await Self.runToEnd(in: folder.path, server: server)
            let output = try String(contentsOfFile: folder.path + "/out/issues.ndjson", encoding: .utf8)
            #expect(
                output == (duringSecond ? afterSecond : afterFirst),
                "trial \(trial): killed after \(bytes.map { "\($0) bytes" } ?? "\(moment) ms")")
            // The state the resumed run left is right too: one more run with nothing new adds nothing.
            if trial % 2 == 1 {
                try await Self.runToEnd(in: folder.path, server: server)
                #expect(try folder.read("out/issues.ndjson") == output, "trial \(trial): the run after the resumed one")
            }
            #expect(
                !FileManager.default.fileExists(atPath: folder.path + "/out/.issues.ndjson.reform-staging"),
                "trial \(trial): the staging file is gone once the run ends")
        }
        #expect(killedMidway >= 10, "at least ten runs were killed while they ran")
        #expect(resumedFromCheckpoint >= 9, "at least nine resumed from a checkpoint (not from the start)")
        print("kill-and-resume: \(killedMidway) of 18 runs killed while running, \(resumedFromCheckpoint) resumed from a checkpoint")
    }
}
