import Foundation
import ReformTestSupport
import Testing

/// A `reform run` killed (SIGKILL) after it has sent rows to PostgreSQL leaves the table as it
/// was: the rows were in the run's transaction, which the server rolls back when the connection
/// goes; so were the columns `schema: evolve` added and their schema log rows.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
struct PostgresKillTests {
    /// The pipeline, loading `listings` with the contract `schema`.
    static func yaml(schema: String) -> String {
        """
        reform: 1
        managers: { a: {}, b: {} }
        reformers: { list: { keys: { id: kID, name: kName }, from: { a: { id: id, name: name }, b: { id: id, name: name } } } }
        runs: { default: { outputs: [ { reform: [list], postgres: "${PG_URL}", table: listings, mode: append, types: { id: int }, schema: \(schema) } ] } }
        """
    }

    /// `evolving`: the table lacks the name column, which the run adds before it copies rows.
    @Test(arguments: [false, true]) func aKilledRunLeavesTheTableUnchanged(evolving: Bool) async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        let columns = evolving ? #""kID" bigint"# : #""kID" bigint, "kName" text"#
        try db.execute("CREATE TABLE listings (\(columns)); INSERT INTO listings (\"kID\") VALUES (1)")
        let folder = try TemporaryFolder()
        let pipeline = try folder.write("p.yaml", Self.yaml(schema: evolving ? "evolve" : "freeze"))
        // More than one COPY batch (1 MiB) from a, so rows reach the server before the run waits on b.
        let name = String(repeating: "x", count: 300)
        try folder.write("a.ndjson", (1...20_000).map { #"{"id": \#($0), "name": "\#(name)"}"# + "\n" }.joined())
        // Manager b reads a FIFO nobody writes to: the run has sent a's rows and waits there.
        let fifo = folder.path + "/b.ndjson"
        try #require(mkfifo(fifo, 0o600) == 0)
        let errors = open(folder.path + "/stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(errors) }
        let pid = try Spawn.start(
            [ReformBinary.path, "run", pipeline, "--input", "a=" + folder.path + "/a.ndjson", "--input", "b=" + fifo],
            stdout: errors, stderr: errors, environment: ["PATH=/usr/bin:/bin", "PG_URL=" + database.url])
        // COPY takes a ROW EXCLUSIVE lock on the table: held from the first batch to the end of
        // the run's transaction.
        var copying = false
        for _ in 0..<1000 where !copying {
            copying =
                try db.rows(
                    "SELECT count(*) FROM pg_locks WHERE relation = 'listings'::regclass AND mode = 'RowExclusiveLock' "
                        + "AND pid <> pg_backend_pid()") == ["1"]
            if !copying { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(copying, "the run sent rows: \((try? folder.read("stderr.txt")) ?? "")")
        kill(pid, SIGKILL)
        #expect(try await Spawn.exitStatus(of: pid) == 128 + SIGKILL)
        #expect(try db.rows(#"SELECT * FROM listings"#) == [evolving ? "1" : "1|NULL"])
        #expect(try db.rows("SELECT to_regclass('_reform_schema_log') IS NULL") == ["t"])
    }
}
