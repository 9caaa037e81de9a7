import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// PostgreSQL keeps only the first 63 bytes of a name: longer table and column names are load
/// errors, and the names Reform makes for an upsert (its temporary table, its arrival column)
/// never collide with a table's or a key's (reliability audit L7).
@Suite(.timeLimit(.minutes(10))) struct PostgresIdentifierTests {
    /// A pipeline with one keyed mapping (key `id` as `idConstant`) loading each of `tables`.
    static func pipeline(tables: [String], idConstant: String = "kID", mode: String = "mode: upsert, key: [id]") -> String {
        """
        reform: 1
        managers: { m: {} }
        reformers:
          r: { keys: { id: \(idConstant), name: kName }, map: { id: id, name: name } }
        runs:
          default:
            outputs:
        \(tables.map { "      - { reform: [r], postgres: \"${PG_URL}\", table: \($0), \(mode), types: { id: int } }" }.joined(separator: "\n"))
        """
    }

    static let long = String(repeating: "t", count: 60)

    @Test func namesLongerThan63BytesAreLoadErrorsAtTheirLine() throws {
        let yaml = Self.pipeline(tables: [Self.long + "_one", Self.long + "_two"], idConstant: "k" + String(repeating: "I", count: 63))
        let found = try SQLiteOutputTests.diagnostics(yaml)
        #expect(
            found == [
                "p.yaml:8:34: error: the postgres output of run 'default' has column 'k\(String(repeating: "I", count: 63))' (the constant "
                    + "of key 'id'), 64 bytes long, but PostgreSQL keeps only the first 63 bytes of a name; give the key a shorter constant",
                "p.yaml:8:54: error: 'table' of run 'default' is 64 bytes long, but PostgreSQL keeps only the first 63 bytes of a name "
                    + "(tables alike in those would be one); give a shorter name",
                "p.yaml:9:34: error: the postgres output of run 'default' has column 'k\(String(repeating: "I", count: 63))' (the constant "
                    + "of key 'id'), 64 bytes long, but PostgreSQL keeps only the first 63 bytes of a name; give the key a shorter constant",
                "p.yaml:9:54: error: 'table' of run 'default' is 64 bytes long, but PostgreSQL keeps only the first 63 bytes of a name "
                    + "(tables alike in those would be one); give a shorter name",
            ])
        #expect(try SQLiteOutputTests.diagnostics(Self.pipeline(tables: [String(repeating: "t", count: 63)])) == [])
    }

    /// Runs `yaml` over two records into `database`.
    func run(_ yaml: String, _ database: PostgresDatabase) async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", yaml)
        try harness.write("in.ndjson", #"{"id": 1, "name": "a"}"# + "\n" + #"{"id": 1, "name": "b"}"# + "\n")
        var options = RunOptions()
        options.inputs = [("m", harness.path("in.ndjson"))]
        options.environment = ["PG_URL": database.url]
        _ = try await harness.run("p.yaml", options: options)
    }

    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server"))
    func twoUpsertTablesAlikeInTheirFirst48BytesEachLoad() async throws {
        let database = try PostgresServer.database()
        let names = [String(repeating: "u", count: 50) + "_first", String(repeating: "u", count: 50) + "_second"]
        try await run(Self.pipeline(tables: names), database)
        for name in names {
            #expect(try database.client().rows("SELECT * FROM \"\(name)\"") == ["1|b"], "\(name)")
        }
    }

    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server"))
    func aKeyNamedLikeTheArrivalColumnIsUpserted() async throws {
        let database = try PostgresServer.database()
        try await run(Self.pipeline(tables: ["arrivals"], idConstant: "_reform_arrival"), database)
        #expect(try database.client().rows("SELECT * FROM arrivals") == ["1|b"])
    }

    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
    func aSchemaQualifiedTableIsLoadedInItsSchemaMadeWhenMissingAndReadBack() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(tables: ["analytics.listings"]))
        try harness.write("m.ndjson", #"{"id": 1, "name": "loft"}"# + "\n" + #"{"id": 2, "name": "studio"}"# + "\n")
        var options = RunOptions()
        options.inputs = [("m", harness.path("m.ndjson"))]
        options.environment = ["PG_URL": database.url]
        let summary = try await harness.run("p.yaml", options: options)
        #expect(summary.written.map(\.output) == [database.url + "#analytics.listings"])
        try await harness.run("p.yaml", options: options)  // the upsert again: the same two rows
        let db = try database.client()
        #expect(try db.rows(#"SELECT "kID", "kName" FROM analytics.listings ORDER BY 1"#) == ["1|loft", "2|studio"])
        #expect(try db.rows("SELECT to_regclass('public.listings') IS NULL") == ["t"], "not a table named with a dot in public")
        let read = try TableSummary.read(database.url + "#analytics.listings")
        #expect(read.rows == 2)
        #expect(read.lastLoad?.what == "upsert of 2 rows")
        #expect(
            try SQLiteOutputTests.diagnostics(Self.pipeline(tables: ["analytics."])).first?.contains(
                "a PostgreSQL table in a schema is written SCHEMA.TABLE, as in analytics.issues") == true)
        #expect(
            try SQLiteOutputTests.diagnostics(Self.pipeline(tables: ["analytics._reform_x"])).first?.contains(
                "names starting with sqlite_, pg_ or _reform_ belong to") == true)
    }
}
