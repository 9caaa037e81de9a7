import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// `reform show ADDRESS`: a table's rows, columns (declared type, nulls), the last load Reform
/// logged into it (`_reform_loads`, one row per run, written in the run's transaction) and the
/// columns `schema: evolve` added — for SQLite and PostgreSQL.
@Suite(.timeLimit(.minutes(10)))
struct TableSummaryTests {
    /// Loads two runs into `database`'s `listings` (append; the second adds the key `area`).
    static func loadTwice(_ harness: RunHarness, database: String, environment: [String: String] = [:]) async throws {
        let settings = "mode: append, schema: evolve, types: { id: int }"
        try harness.write("p.yaml", SQLiteContractTests.pipeline(keys: ["id", "name"], settings: settings, database: database))
        try await SQLiteContractTests.run(harness, SQLiteContractTests.firstRun, environment: environment)
        try harness.write(
            "p.yaml",
            SQLiteContractTests.pipeline(
                keys: ["id", "name", "area"], settings: settings, converting: ["area": "double"], database: database))
        try await SQLiteContractTests.run(harness, [#"{"id": 3, "name": "house", "area": 90}"#], environment: environment)
    }

    @Test func sqliteTablesAreSummarisedWithTheirLoadsAndChanges() async throws {
        let harness = try RunHarness()
        try await Self.loadTwice(harness, database: "sqlite: out/l.db")
        let summary = try TableSummary.read("sqlite:" + harness.path("out/l.db"))
        #expect(summary.table == "listings", "Reform's own tables are not the database's one table")
        #expect(summary.rows == 3)
        #expect(summary.columns.map { "\($0.name) \($0.type) \($0.nulls)" } == ["kId INTEGER 0", "kName TEXT 0", "kArea REAL 2"])
        #expect(summary.loads == 2)
        #expect(summary.lastLoad?.pipeline == "homes")
        #expect(summary.lastLoad?.what == "append of 1 row")
        #expect(summary.changes.map(\.what) == ["add column kArea REAL"])
        let lines = summary.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "sqlite:\(harness.path("out/l.db"))#listings: 3 rows, 3 columns")
        #expect(lines.dropFirst().first == "  COLUMN  TYPE     NULLS")
        #expect(lines.contains("  kArea   REAL     2"))
        #expect(lines.contains { $0.hasPrefix("last load: ") && $0.hasSuffix(" by pipeline 'homes': append of 1 row (2 loads logged)") })
        #expect(lines.last?.hasSuffix(" by pipeline 'homes': add column kArea REAL") == true)
        #expect(summary.json.objectValue?["loads"] == .int(2))
    }

    @Test func theCommandPrintsItAndAMissingTableIsAnError() async throws {
        let harness = try RunHarness()
        try await Self.loadTwice(harness, database: "sqlite: out/l.db")
        let show = try await ReformBinary.run(["show", "sqlite:out/l.db#listings"], environment: [:], in: harness.folder)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.hasPrefix("sqlite:out/l.db#listings: 3 rows, 3 columns\n"))
        let json = try await ReformBinary.run(["show", "sqlite:out/l.db", "--json"], environment: [:], in: harness.folder)
        #expect(try JSON.parse(Array(json.stdout.utf8)).objectValue?["rows"] == .int(3))
        let missing = try await ReformBinary.run(["show", "sqlite:out/l.db#listing"], environment: [:], in: harness.folder)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("listings"), "the tables there are: \(missing.stderr)")
    }

    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
    func postgresTablesAreSummarisedWithTheirLoadsAndChanges() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try await Self.loadTwice(harness, database: #"postgres: "${PG_URL}""#, environment: ["PG_URL": database.url])
        let summary = try TableSummary.read(database.url + "#listings")
        #expect(summary.rows == 3)
        #expect(
            summary.columns.map { "\($0.name) \($0.type) \($0.nulls)" } == ["kId bigint 0", "kName text 0", "kArea double precision 2"])
        #expect(summary.loads == 2)
        #expect(summary.lastLoad?.what == "append of 1 row")
        #expect(summary.lastLoad?.at.hasSuffix("Z") == true)
        #expect(summary.changes.map(\.what) == ["add column kArea double precision"])
    }
}
