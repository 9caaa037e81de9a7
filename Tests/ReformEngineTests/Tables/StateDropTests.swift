import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// `reform state drop --with-tables`: the tables a run loads are dropped with the state kept
/// beside them, in one transaction, and logged; without `--with-tables` it forgets as `reset`
/// does. A run of files has no table to drop, and says so.
@Suite(.timeLimit(.minutes(10)))
struct StateDropTests {
    /// Saved state of `tracked` (issues and repos) and of another pipeline, in `_reform_state`.
    static let savedState =
        #"CREATE TABLE _reform_state (pipeline TEXT NOT NULL, manager TEXT NOT NULL, "partition" TEXT NOT NULL, "#
        + #"state TEXT NOT NULL, PRIMARY KEY (pipeline, manager, "partition")); "#
        + #"INSERT INTO _reform_state VALUES ('tracked', 'issues', '', '{"bookmark": "2026-11-25T10:00:00Z", "edge": []}'), "#
        + #"('tracked', 'repos', 'org-1', '{"bookmark": 17, "edge": []}'), ('other', 'issues', '', '{"bookmark": 1, "edge": []}')"#

    /// A folder with p.yaml loading out/issues.db#issues (two rows), and `savedState` beside it.
    static func tableRun() throws -> (TemporaryFolder, SQLiteFile) {
        let folder = try TemporaryFolder()
        _ = try folder.write(
            "p.yaml", StateShowTests.pipeline("sqlite: out/issues.db, table: issues, mode: upsert, key: [id], types: { id: int }"))
        _ = try folder.write("out/keep.txt", "")
        let db = try SQLiteFile(folder.path + "/out/issues.db")
        try db.execute(Self.savedState + "; CREATE TABLE issues (kID INTEGER PRIMARY KEY); INSERT INTO issues VALUES (1), (2)")
        return (folder, db)
    }

    @Test func sqliteTablesGoWithTheStateOfEveryManagerInOneTransaction() async throws {
        let (folder, db) = try Self.tableRun()

        let dropped = try await ReformBinary.run(
            ["state", "drop", "p.yaml", "--with-tables", "--manager", "issues"], environment: [:], in: folder.path)
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(
            dropped.stderr
                == "reform: dropped table 'issues' and the state of every manager (not only 'issues': the tables held every "
                + "manager's rows) in out/issues.db#_reform_state, in one transaction; the next run fetches everything into new tables\n")
        #expect(try db.rows("SELECT name FROM sqlite_master WHERE name = 'issues'") == [])
        #expect(try db.rows("SELECT pipeline, manager FROM _reform_state") == ["'other'|'issues'"], "another pipeline's state stays")
        #expect(try db.rows("SELECT pipeline, table_name, change FROM _reform_schema_log") == ["'tracked'|'issues'|'drop table'"])

        // Nothing left to drop is no error; a manager the pipeline lacks is a usage error.
        let again = try await ReformBinary.run(["state", "drop", "p.yaml", "--with-tables"], environment: [:], in: folder.path)
        #expect(again.status == 0, "\(again.stderr)")
        let unknown = try await ReformBinary.run(
            ["state", "drop", "p.yaml", "--with-tables", "--manager", "isues"], environment: [:], in: folder.path)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no manager 'isues' in p.yaml"))
    }

    @Test func withoutTablesItForgetsAsResetDoesAndFilesAreNotDropped() async throws {
        let (folder, db) = try Self.tableRun()
        let forgot = try await ReformBinary.run(["state", "drop", "p.yaml", "--manager", "repos"], environment: [:], in: folder.path)
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect(forgot.stderr.contains("reform: state of manager 'repos' reset in out/issues.db#_reform_state"))
        #expect(try db.rows("SELECT name FROM sqlite_master WHERE name = 'issues'") == ["'issues'"])
        #expect(try db.rows("SELECT manager FROM _reform_state WHERE pipeline = 'tracked'") == ["'issues'"])

        _ = try folder.write("files.yaml", StateShowTests.pipeline("format: ndjson, path: out/issues.ndjson"))
        let files = try await ReformBinary.run(["state", "drop", "files.yaml", "--with-tables"], environment: [:], in: folder.path)
        #expect(files.status == 1)
        #expect(files.stderr.contains("run 'default' of files.yaml loads no table: its outputs are files; leave out --with-tables"))
    }

    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
    func postgresTablesGoWithTheirStateAndASchemaQualifiedTableToo() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            StateShowTests.pipeline(#"postgres: "${PG_URL}", table: analytics.issues, mode: upsert, key: [id], types: { id: int }"#))
        let db = try database.client()
        try db.execute(
            "CREATE SCHEMA analytics; CREATE TABLE analytics.issues (\"kID\" bigint PRIMARY KEY); INSERT INTO analytics.issues VALUES (1); "
                + "CREATE TABLE _reform_state (pipeline text NOT NULL, manager text NOT NULL, \"partition\" text NOT NULL, "
                + "state text NOT NULL, PRIMARY KEY (pipeline, manager, \"partition\")); "
                + "INSERT INTO _reform_state VALUES ('tracked', 'issues', '', '{}'), ('other', 'issues', '', '{}')")
        var options = RunOptions()
        options.environment = ["PG_URL": database.url]
        let pipeline = try harness.load("p.yaml", environment: options.environment)
        let dropped = try #require(try SavedState.drop(manager: nil, withTables: true, of: pipeline, options: options))
        #expect(dropped.tables == ["analytics.issues"])
        #expect(dropped.place == database.url + "#_reform_state")
        #expect(try db.rows("SELECT to_regclass('analytics.issues') IS NULL") == ["t"])
        #expect(try db.rows("SELECT pipeline FROM _reform_state") == ["other"])
        #expect(try db.rows("SELECT pipeline, table_name, change FROM _reform_schema_log") == ["tracked|analytics.issues|drop table"])
    }
}
