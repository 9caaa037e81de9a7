import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// `schema:` of a PostgreSQL table output, against a real server: `evolve` adds columns (with
/// PostgreSQL's types) in the run's transaction and logs them, `discard_row` and `discard_value`
/// keep the table as it is; as ``SQLiteContractTests`` holds them for SQLite.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
struct PostgresContractTests {
    static func pipeline(keys: [String], settings: String, converting: [String: String] = [:]) -> String {
        SQLiteContractTests.pipeline(keys: keys, settings: settings, converting: converting, database: #"postgres: "${PG_URL}""#)
    }

    @Test func evolveAddsTheNewColumnsInPostgresTypesAndLogsThem() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        let environment = ["PG_URL": database.url]
        try harness.write(
            "p.yaml", Self.pipeline(keys: ["id", "name"], settings: "mode: upsert, key: [id], schema: evolve, types: { id: int }"))
        try await SQLiteContractTests.run(harness, SQLiteContractTests.firstRun, environment: environment)
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "area", "seen"], settings: "mode: upsert, key: [id], schema: evolve, types: { id: int }",
                converting: ["area": "double", "seen": "date"]))
        let summary = try await SQLiteContractTests.run(
            harness, [#"{"id": 2, "name": "studio", "area": 31.5, "seen": "2024-05-01"}"#, #"{"id": 3, "name": "house"}"#],
            environment: environment)
        #expect(
            summary.tableChanges == [
                "\(database.url)#listings: added column kArea (double precision), schema: evolve",
                "\(database.url)#listings: added column kSeen (timestamptz), schema: evolve",
            ])
        let db = try database.client()
        #expect(
            try db.rows(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'listings' ORDER BY ordinal_position")
                == ["kId|bigint", "kName|text", "kArea|double precision", "kSeen|timestamp with time zone"])
        #expect(
            try db.rows(#"SELECT "kId", "kName", "kArea", "kSeen" AT TIME ZONE 'UTC' FROM listings ORDER BY 1"#) == [
                "1|loft|NULL|NULL", "2|studio|31.5|2024-05-01 00:00:00", "3|house|NULL|NULL",
            ])
        #expect(
            try db.rows("SELECT pipeline, table_name, change, column_name, column_type FROM _reform_schema_log ORDER BY column_name")
                == ["homes|listings|add column|kArea|double precision", "homes|listings|add column|kSeen|timestamptz"])
    }

    @Test func widenChangesIntegerToBigintDoubleOrTextInTheRunsTransaction() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(
            #"CREATE TABLE listings ("kId" integer PRIMARY KEY, "kRooms" smallint, "kArea" integer, "kTag" integer); "#
                + "INSERT INTO listings VALUES (1, 2, 90, 7)")
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "rooms", "area", "tag"], settings: "mode: upsert, key: [id], schema: evolve, widen: true, types: { id: int }",
                converting: ["rooms": "int", "area": "double", "tag": "string"]))
        let summary = try await SQLiteContractTests.run(
            harness, [#"{"id": 3000000000, "rooms": 70000, "area": 31.5, "tag": "corner"}"#], environment: ["PG_URL": database.url])
        #expect(summary.rejected == 0)
        #expect(
            summary.tableChanges == [
                "\(database.url)#listings: widened column kId from integer to bigint, schema: evolve, widen: true",
                "\(database.url)#listings: widened column kRooms from smallint to bigint, schema: evolve, widen: true",
                "\(database.url)#listings: widened column kArea from integer to double precision, schema: evolve, widen: true",
                "\(database.url)#listings: widened column kTag from integer to text, schema: evolve, widen: true",
            ])
        #expect(
            try db.rows(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'listings' ORDER BY ordinal_position")
                == ["kId|bigint", "kRooms|bigint", "kArea|double precision", "kTag|text"])
        #expect(try db.rows(#"SELECT * FROM listings ORDER BY 1"#) == ["1|2|90|7", "3000000000|70000|31.5|corner"])
        #expect(try db.rows("SELECT count(*) FROM _reform_schema_log WHERE change = 'widen column'") == ["4"])
    }

    @Test func discardRowAndDiscardValueKeepTheTableAsItIs() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(#"CREATE TABLE listings ("kId" bigint UNIQUE, "kName" text, "kRooms" integer, "kTag" uuid)"#)
        let lines = [
            #"{"id": 1, "name": "loft", "rooms": "3", "area": 90}"#, #"{"id": 2, "name": "studio", "rooms": "one"}"#,
            #"{"id": 3, "name": "barn"}"#,
        ]
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "rooms", "area"], settings: "mode: upsert, key: [id], schema: discard_row, types: { id: int }"))
        let rows = try await SQLiteContractTests.run(harness, lines, environment: ["PG_URL": database.url])
        #expect(rows.rejected == 2)
        #expect(try SQLiteContractTests.deadLetters(harness).map { $0.prefix { $0 != ":" } } == ["unknown-column", "column-type"])
        #expect(try db.rows(#"SELECT "kId", "kName", "kRooms" FROM listings ORDER BY 1"#) == ["3|barn|NULL"])
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "rooms", "area"], settings: "mode: upsert, key: [id], schema: discard_value, types: { id: int }"))
        let values = try await SQLiteContractTests.run(harness, lines, environment: ["PG_URL": database.url])
        #expect(values.rejected == 0)
        #expect(values.discardedValues.map(\.count) == [2])
        #expect(try db.rows(#"SELECT "kId", "kName", "kRooms" FROM listings ORDER BY 1"#) == ["1|loft|3", "2|studio|NULL", "3|barn|NULL"])
        #expect(try db.rows("SELECT column_name FROM information_schema.columns WHERE table_name = 'listings'").count == 4)
        #expect(try db.rows("SELECT to_regclass('_reform_schema_log') IS NULL") == ["t"])
    }
}
