import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// `child_tables:` of a PostgreSQL table output, against a real server: PostgreSQL's types, a
/// schema-qualified parent, an upsert replacing a parent's rows, and the rows of a parent the
/// server refuses left out; as ``ChildTableTests`` holds them for SQLite.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
struct PostgresChildTableTests {
    @Test func anUpsertIntoASchemaReplacesEachParentsRowsInPostgresTypes() async throws {
        let database = try PostgresServer.database()
        let environment = ["PG_URL": database.url]
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            ChildTableTests.pipeline(
                settings: "mode: upsert, key: [id], schema: evolve, child_tables: [labels, names]", database: #"postgres: "${PG_URL}""#,
                table: "analytics.issues"))
        try await ChildTableTests.run(harness, ChildTableTests.firstRun, environment: environment)
        let db = try database.client()
        #expect(
            try db.rows(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'analytics' "
                    + "AND table_name = 'issues__labels' ORDER BY ordinal_position") == [
                    "kIssueKeyID|bigint", "_position|bigint", "name|text", "color|text", "id|bigint", "meta|jsonb",
                    "score|double precision",
                ])
        #expect(
            try db.rows(#"SELECT "kIssueKeyID", _position, name, id, meta FROM analytics.issues__labels ORDER BY 1, 2"#) == [
                "1|0|bug|10|NULL", #"1|1|ui|11|{"a": 1}"#, "4|0|perf|12|NULL", "4|1|bug|NULL|NULL",
            ])
        #expect(try db.rows("SELECT count(*) FROM pg_indexes WHERE tablename = 'issues__labels'") == ["1"])
        let summary = try await ChildTableTests.run(
            harness,
            [
                #"{"id": 1, "title": "crash", "labels": [{"name": "wontfix", "since": "2026"}]}"#,
                #"{"id": 4, "title": "slow", "labels": [{"name": "a"}]}"#,
                #"{"id": 1, "title": "crash again", "labels": [{"name": "bug"}, {"name": "regression"}]}"#,
            ], environment: environment)
        #expect(summary.tableChanges == ["\(database.url)#analytics.issues__labels: added column since (text), schema: evolve"])
        #expect(
            try db.rows(#"SELECT "kIssueKeyID", _position, name FROM analytics.issues__labels ORDER BY 1, 2"#) == [
                "1|0|bug", "1|1|regression", "4|0|a",
            ])
        #expect(
            try db.rows(#"SELECT "kIssueKeyID", value FROM analytics.issues__names ORDER BY 1, _position"#) == [
                "1|bug", "1|regression", "4|a",
            ])
        #expect(
            try db.rows("SELECT table_name, change, column_name FROM _reform_schema_log") == [
                "analytics.issues__labels|add column|since"
            ])
        // `reform state drop --with-tables` drops the child tables with their parent.
        var options = RunOptions()
        options.environment = environment
        let pipeline = try harness.load("p.yaml", environment: environment)
        let dropped = try #require(try SavedState.drop(manager: nil, withTables: true, of: pipeline, options: options))
        #expect(dropped.tables == ["analytics.issues", "analytics.issues__labels", "analytics.issues__names"])
        #expect(try db.rows("SELECT count(*) FROM pg_tables WHERE schemaname = 'analytics'") == ["0"])
    }

    /// A key of two columns: the parent's old rows are deleted by both (text with a quote and a
    /// backslash included), through arrays of each.
    @Test func anUpsertOnAKeyOfTwoColumnsReplacesEachParentsRows() async throws {
        let database = try PostgresServer.database()
        let environment = ["PG_URL": database.url]
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            ChildTableTests.pipeline(
                settings: "mode: upsert, key: [id, title], child_tables: [names]", database: #"postgres: "${PG_URL}""#))
        let odd = #"say \"hi\" \\ there"#
        try await ChildTableTests.run(
            harness,
            ChildTableTests.firstRun + [#"{"id": 1, "title": "\#(odd)", "labels": [{"name": "x"}]}"#], environment: environment)
        let second = try await ChildTableTests.run(
            harness,
            [#"{"id": 1, "title": "\#(odd)", "labels": [{"name": "y"}]}"#, #"{"id": 4, "title": "slow", "labels": []}"#],
            environment: environment)
        #expect(second.rejected == 0 && second.childRows.map(\.count) == [1], "\(second.description)")
        let db = try database.client()
        let names = try db.rows(#"SELECT "kIssueKeyID", "kIssueKeyTitle", value FROM issues__names ORDER BY 1, 2, _position"#)
        #expect(names == ["1|crash|bug", "1|crash|ui", #"1|say "hi" \ there|y"#], "\(names)")
    }

    /// A run asked to roll its PostgreSQL loads back (as `reform studio`'s runs are) loads every
    /// row, has the server refuse what it refuses, and keeps nothing; the summary says so.
    @Test func aRunThatRollsBackPostgresLoadsEverythingAndKeepsNothing() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(#"CREATE TABLE issues ("kIssueKeyID" bigint PRIMARY KEY, "kIssueKeyTitle" text CHECK ("kIssueKeyTitle" <> 'bad'))"#)
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            ChildTableTests.withoutNames(
                ChildTableTests.pipeline(
                    settings: "mode: upsert, key: [id], schema: evolve, child_tables: [labels]", database: #"postgres: "${PG_URL}""#)))
        try harness.write(
            "issues.ndjson",
            #"{"id": 1, "title": "fine", "labels": [{"name": "a"}]}"# + "\n" + #"{"id": 2, "title": "bad", "labels": []}"# + "\n")
        var options = RunOptions()
        options.inputs = [("issues", harness.path("issues.ndjson"))]
        options.deadLetterPath = harness.path("dead.ndjson")
        options.environment = ["PG_URL": database.url]
        options.rollsBackPostgres = true
        let summary = try await harness.run("p.yaml", options: options)
        #expect(summary.rejected == 1 && summary.written.map(\.count) == [1] && summary.childRows.map(\.count) == [1])
        #expect(summary.rolledBack == [database.url])
        #expect(summary.description.contains("; \(database.url): loaded and rolled back, nothing kept"))
        #expect(try db.rows(#"SELECT count(*) FROM issues"#) == ["0"])
        #expect(try db.rows("SELECT to_regclass('issues__labels') IS NULL, to_regclass('_reform_loads') IS NULL") == ["t|t"])
    }

    /// The server's notices (`relation "_reform_loads" already exists, skipping`) are not
    /// printed: libpq writes them to standard error, where a quiet run says nothing.
    @Test func aQuietRunPrintsNothingOnItsSecondLoad() async throws {
        let database = try PostgresServer.database()
        let folder = try TemporaryFolder()
        try folder.write(
            "p.yaml",
            ChildTableTests.pipeline(
                settings: "mode: upsert, key: [id], schema: evolve, child_tables: [labels]", database: #"postgres: "${PG_URL}""#))
        try folder.write("issues.ndjson", ChildTableTests.firstRun.map { $0 + "\n" }.joined())
        for _ in 0..<2 {
            let outcome = try await ReformBinary.run(
                ["run", "p.yaml", "--input", "issues=issues.ndjson", "--quiet"], environment: ["PG_URL": database.url], in: folder.path)
            #expect(outcome.status == 0)
            #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        }
    }

    @Test func theRowsOfAParentTheServerRefusesAreLeftOut() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(#"CREATE TABLE issues ("kIssueKeyID" bigint, "kIssueKeyTitle" text UNIQUE)"#)
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            ChildTableTests.withoutNames(
                ChildTableTests.pipeline(settings: "mode: append, key: [id], child_tables: [labels]", database: #"postgres: "${PG_URL}""#)))
        let summary = try await ChildTableTests.run(
            harness,
            [
                #"{"id": 1, "title": "crash", "labels": [{"name": "bug"}]}"#,
                #"{"id": 2, "title": "crash", "labels": [{"name": "dup"}, {"name": "dup2"}]}"#,
                #"{"id": 3, "title": "docs", "labels": [{"name": "docs", "bytes": "a\u0000b"}]}"#,
            ], environment: ["PG_URL": database.url])
        #expect(summary.written.map(\.count) == [2])
        #expect(summary.childRows.map(\.count) == [1])
        #expect(summary.rejected == 2)
        let codes = try harness.lines("dead.ndjson").map { line in
            let entry = try JSON.parse(Array(line.utf8)).objectValue ?? Object()
            return (entry["code"]?.stringValue ?? "") + " " + (entry["stage"]?.stringValue ?? "")
        }
        #expect(codes == ["refused table ${PG_URL}#issues", "column-type table ${PG_URL}#issues__labels"])
        #expect(try db.rows(#"SELECT "kIssueKeyID", name FROM issues__labels ORDER BY 1"#) == ["1|bug"])
    }

    @Test func theRowsOfAParentAnUpsertsMergeRefusesAreLeftOut() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(#"CREATE TABLE issues ("kIssueKeyID" bigint PRIMARY KEY, "kIssueKeyTitle" text CHECK ("kIssueKeyTitle" <> 'bad'))"#)
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            ChildTableTests.withoutNames(
                ChildTableTests.pipeline(settings: "mode: upsert, key: [id], child_tables: [labels]", database: #"postgres: "${PG_URL}""#)))
        let summary = try await ChildTableTests.run(
            harness,
            [
                #"{"id": 1, "title": "fine", "labels": [{"name": "a"}]}"#, #"{"id": 2, "title": "bad", "labels": [{"name": "b"}]}"#,
                #"{"id": 3, "title": "also fine", "labels": [{"name": "c"}]}"#,
            ], environment: ["PG_URL": database.url])
        #expect(summary.rejected == 1)
        #expect(try db.rows(#"SELECT "kIssueKeyID" FROM issues ORDER BY 1"#) == ["1", "3"])
        #expect(try db.rows(#"SELECT "kIssueKeyID", name FROM issues__labels ORDER BY 1"#) == ["1|a", "3|c"])
    }
}
