import Foundation
import ReformSystem
import ReformTestSupport
import Testing

/// An incremental manager whose records go to a table keeps its state in the table's database
/// (`_reform_state`), committed in one transaction with the rows: the next run asks only for
/// what changed, upsert drops what the lookback lands again, and a run killed at any moment
/// leaves rows and state as the last committed run left them — against the loopback server's
/// GitHub-like API, for SQLite and PostgreSQL.
@Suite(.timeLimit(.minutes(10)))
struct IncrementalTableTests {
    static func pipeline(_ output: String) -> String {
        """
        reform: 1
        name: tracked
        services: { github: { base_url: "${TEST_URL}/gh" } }
        managers:
          issues:
            service: github
            path: /repos/org-5/repo-1/issues
            params: { state: all, sort: updated, direction: asc, per_page: 4 }
            paging: { policy: link }
            incremental: { cursor: updated_at, param: since, key: id, lookback: 5m }
        reformers:
          issue: { keys: { id: kID, title: kTitle, updated: kUpdated }, map: { id: id, title: title, updated: updated_at } }
        runs:
          default: { outputs: [ { reform: [issue], \(output), table: issues, mode: upsert, key: [id], types: { id: int } } ] }
        """
    }

    @Test func sqliteKeepsTheStateInTheDatabase() async throws {
        let folder = try TemporaryFolder()
        try await Self.check(output: "sqlite: out/issues.db", folder: folder, environment: [:]) { sql in
            try SQLiteFile(folder.path + "/out/issues.db").rows(sql)
        }
    }

    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server")) func postgresKeepsTheStateInTheDatabase() async throws {
        let database = try PostgresServer.database()
        let client = try database.client()
        try await Self.check(output: #"postgres: "${PG_URL}""#, folder: try TemporaryFolder(), environment: ["PG_URL": database.url]) {
            try client.rows($0)
        }
    }

    /// Two runs with the data changing between them, then a third run killed mid-way after
    /// another change, then that run again to its end.
    static func check(
        output: String, folder: TemporaryFolder, environment: [String: String], rows: (String) throws -> [String]
    ) async throws {
        let server = try TestServer()
        try await server.post("/_reset")
        try await server.post("/gh/_admin/config", #"{"issues_per_repo": 18, "delay_ms": 0}"#)
        _ = try folder.write("p.yaml", pipeline(output))
        var environment = environment
        environment["TEST_URL"] = server.url
        func run() async throws {
            let outcome = try await ReformBinary.run(["run", "p.yaml", "--live", "--quiet"], environment: environment, in: folder.path)
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        let issues = #"SELECT "kID", "kUpdated" FROM issues ORDER BY "kID""#
        let state = "SELECT manager, state FROM _reform_state WHERE pipeline = 'tracked'"

        try await run()
        let first = try rows(issues)
        let firstState = try rows(state)
        #expect(first.count == 18)
        #expect(firstState.count == 1 && firstState[0].contains("bookmark"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/.tracked.reform-state.json"), "no state file")

        try await server.post("/gh/_admin/advance", #"{"touch": 3, "add": 2}"#)
        try await run()
        let second = try rows(issues)
        let secondState = try rows(state)
        #expect(second.count == 20, "two new issues, the touched ones updated in place: \(second)")
        #expect(Set(second).isSuperset(of: Set(first)) == false, "touched issues have a new updated_at")
        #expect(secondState != firstState, "the bookmark moved")

        // A run killed mid-way (pages are slow now): rows and state are both the second run's,
        // or both the run's own when it got to commit.
        try await server.post("/gh/_admin/advance", #"{"touch": 2, "add": 1}"#)
        try await server.post("/gh/_admin/config", #"{"delay_ms": 40}"#)
        let null = open("/dev/null", O_WRONLY)
        defer { close(null) }
        let command = "cd '\(folder.path)' && exec '\(ReformBinary.path)' run p.yaml --live --quiet"
        let pid = try Spawn.start(
            ["/bin/sh", "-c", command], stdout: null, stderr: null,
            environment: ["PATH=/usr/bin:/bin"] + environment.map { "\($0.key)=\($0.value)" })
        try await Task.sleep(for: .milliseconds(60))
        kill(pid, SIGKILL)
        _ = try await Spawn.exitStatus(of: pid)
        let killed = try rows(issues)
        let killedState = try rows(state)
        #expect(killed == second && killedState == secondState || killed.count == 21 && killedState != secondState)

        try await server.post("/gh/_admin/config", #"{"delay_ms": 0}"#)
        try await run()
        let third = try rows(issues)
        #expect(third.count == 21, "\(third)")
        #expect(Set(third.map { $0.split(separator: "|")[0] }).count == 21, "one row per issue")
    }
}
