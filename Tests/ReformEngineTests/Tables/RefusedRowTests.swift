import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// A row the database refuses (a unique index the user made, a value out of an `integer`
/// column's range, a check or a foreign key) goes to the dead-letter file with the database's
/// message, and the run's other rows load: on PostgreSQL the batch is loaded in a savepoint and
/// sent again without the row; on SQLite the insert of that row alone fails. The same on the
/// batch fast path as on the general one.
@Suite(.timeLimit(.minutes(10)))
struct RefusedRowTests {
    static let yaml = """
        reform: 1
        name: homes
        managers: { rent: {} }
        reformers:
          listing:
            keys: { id: kId, name: kName, rooms: kRooms }
            map: { id: id, name: name, rooms: rooms }
        runs:
          default:
            outputs:
              - { reform: [listing], DATABASE, table: listings, MODE, types: { id: int, rooms: int } }
        """

    /// Runs the pipeline over `lines` into `database` (`sqlite: …` or `postgres: …`) in `mode`.
    static func run(_ harness: RunHarness, _ lines: [String], database: String, mode: String, direct: Bool, url: String = "")
        async throws -> RunSummary
    {
        try harness.write("p.yaml", yaml.replacing("DATABASE", with: database).replacing("MODE", with: mode))
        try harness.write("rent.ndjson", lines.map { $0 + "\n" }.joined())
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson"))]
        options.deadLetterPath = harness.path("dead.ndjson")
        options.environment = ["PG_URL": url]
        options.directWrites = direct
        return try await harness.run("p.yaml", options: options)
    }

    /// Each dead-letter entry as `sequence input code: reason` and its record.
    static func deadLetters(_ harness: RunHarness) throws -> [String] {
        try harness.lines("dead.ndjson").map { line in
            let entry = try JSON.parse(Array(line.utf8)).objectValue ?? Object()
            let input = (entry["input"]?.stringValue ?? "").replacing(harness.folder + "/", with: "")
            return "\(entry["sequence"].map(JSON.compactString) ?? "") \(input) \(entry["code"]?.stringValue ?? ""): "
                + "\(entry["reason"]?.stringValue ?? "") \(entry["record"].map(JSON.compactString) ?? "")"
        }
    }

    /// Lines for ids `ids`, each with a name and two rooms.
    static func lines(_ ids: [Int], rooms: Int = 2) -> [String] {
        ids.map { #"{"id": \#($0), "name": "home \#($0)", "rooms": \#(rooms)}"# }
    }

    @Test(
        .enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"),
        arguments: [true, false])
    func postgresRefusedRowsAreDeadLetteredAndTheRestLoads(direct: Bool) async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(
            #"CREATE TABLE owners (id bigint PRIMARY KEY); INSERT INTO owners VALUES (1), (2), (3), (4), (5), (6), (7), (8); "#
                + #"CREATE TABLE listings ("kId" bigint UNIQUE REFERENCES owners (id), "kName" text, "kRooms" integer CHECK ("kRooms" > 0)); "#
                + #"INSERT INTO listings VALUES (1, 'kept', 1)"#)
        let harness = try RunHarness()
        let lines =
            Self.lines([2, 1, 3]) + [#"{"id": 4, "name": "huge", "rooms": 3000000000}"#, #"{"id": 5, "name": "none", "rooms": 0}"#]
            + Self.lines([9, 6])
        let summary = try await Self.run(
            harness, lines, database: #"postgres: "${PG_URL}""#, mode: "mode: append", direct: direct, url: database.url)
        #expect(summary.rejected == 4)
        #expect(summary.written.map(\.count) == [3])
        #expect(try db.rows(#"SELECT * FROM listings ORDER BY 1"#) == ["1|kept|1", "2|home 2|2", "3|home 3|2", "6|home 6|2"])
        #expect(
            try Self.deadLetters(harness) == [
                "2 rent.ndjson:2 refused: table 'listings' refused the row: duplicate key value violates unique constraint "
                    + #""listings_kId_key" (Key ("kId")=(1) already exists.) {"kId":1,"kName":"home 1","kRooms":2}"#,
                "4 rent.ndjson:4 refused: table 'listings' refused the row: value \"3000000000\" is out of range for type integer "
                    + #"{"kId":4,"kName":"huge","kRooms":3000000000}"#,
                "5 rent.ndjson:5 refused: table 'listings' refused the row: new row for relation \"listings\" violates check "
                    + #"constraint "listings_kRooms_check" (Failing row contains (5, none, 0).) {"kId":5,"kName":"none","kRooms":0}"#,
                "6 rent.ndjson:6 refused: table 'listings' refused the row: insert or update on table \"listings\" violates foreign key "
                    + #"constraint "listings_kId_fkey" (Key (kId)=(9) is not present in table "owners".) {"kId":9,"kName":"home 9","kRooms":2}"#,
            ])
        // The rows the server refused were bound from their lines, but not written.
        #expect(summary.writtenDirectly == (direct ? 3 : 0))
    }

    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
    func postgresRefusedRowsAcrossManyBatchesCostOnlyThemselves() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(#"CREATE TABLE listings ("kId" bigint, "kName" text, "kRooms" integer CHECK ("kRooms" <> 13))"#)
        let harness = try RunHarness()
        // About 3 MiB: several batches, a refused row in the first, one in a middle one, one last.
        let count = 30_000
        let name = String(repeating: "n", count: 80)
        let lines = (1...count).map { id in #"{"id": \#(id), "name": "\#(name)", "rooms": \#([7, 15_000, count].contains(id) ? 13 : 1)}"# }
        let summary = try await Self.run(
            harness, lines, database: #"postgres: "${PG_URL}""#, mode: "mode: append", direct: true, url: database.url)
        #expect(summary.rejected == 3)
        #expect(try Self.deadLetters(harness).map { $0.prefix { $0 != " " } } == ["7", "15000", "30000"])
        #expect(try db.rows(#"SELECT count(*), count(DISTINCT "kId") FROM listings WHERE "kRooms" = 1"#) == ["29997|29997"])
    }

    /// Appending the same rows again into a table with a unique index refuses every row: each
    /// costs a COPY of its own once the batch's first is refused, not the batch sent again.
    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
    func postgresAppendingRowsTheTableHasAlreadyRefusesEachAndLoadsTheNewOnes() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(#"CREATE TABLE listings ("kId" bigint UNIQUE, "kName" text, "kRooms" integer)"#)
        let harness = try RunHarness()
        let first = try await Self.run(
            harness, Self.lines(Array(1...3000)), database: #"postgres: "${PG_URL}""#, mode: "mode: append", direct: true,
            url: database.url)
        #expect(first.rejected == 0)
        let again = try await Self.run(
            harness, Self.lines(Array(1...3000)) + Self.lines([3001, 3002]), database: #"postgres: "${PG_URL}""#, mode: "mode: append",
            direct: true, url: database.url)
        #expect(again.rejected == 3000)
        #expect(again.written.map(\.count) == [2])
        #expect(try db.rows(#"SELECT count(*), max("kId") FROM listings"#) == ["3002|3002"])
        let dead = try Self.deadLetters(harness)
        #expect(dead.first?.hasPrefix("1 rent.ndjson:1 refused: table 'listings' refused the row: duplicate key value") == true)
        #expect(dead.last?.hasPrefix("3000 rent.ndjson:3000 refused:") == true)
    }

    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
    func postgresUpsertDeadLettersAValueItsColumnCannotHold() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(#"CREATE TABLE listings ("kId" bigint PRIMARY KEY, "kName" text, "kRooms" smallint)"#)
        let harness = try RunHarness()
        let lines = Self.lines([1]) + [#"{"id": 2, "name": "big", "rooms": 70000}"#] + Self.lines([3])
        let summary = try await Self.run(
            harness, lines, database: #"postgres: "${PG_URL}""#, mode: "mode: upsert, key: [id]", direct: false, url: database.url)
        #expect(summary.rejected == 1)
        #expect(try db.rows(#"SELECT "kId" FROM listings ORDER BY 1"#) == ["1", "3"])
        #expect(try Self.deadLetters(harness).first?.contains("value \"70000\" is out of range for type smallint") == true)
    }

    /// An upsert copies into a temporary table without the table's checks, so a check or foreign
    /// key refuses a row only when the run's rows are merged at the end: that row goes to the
    /// dead-letter file (from its record's line), and the others merge, the latest of a key winning.
    @Test(
        .enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"),
        arguments: [true, false])
    func postgresUpsertRowsTheMergeRefusesAreDeadLetteredAndTheRestMerge(direct: Bool) async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute(
            #"CREATE TABLE owners (id bigint PRIMARY KEY); INSERT INTO owners SELECT generate_series(1, 3000); "#
                + #"CREATE TABLE listings ("kId" bigint PRIMARY KEY REFERENCES owners (id), "kName" text, "#
                + #""kRooms" integer CHECK ("kRooms" > 0)); INSERT INTO listings VALUES (1, 'kept', 1)"#)
        let harness = try RunHarness()
        let lines =
            Self.lines([2, 1]) + [#"{"id": 5, "name": "none", "rooms": 0}"#, #"{"id": 6, "name": "early", "rooms": 0}"#]
            + Self.lines([9000, 3]) + Self.lines([6]) + Self.lines(Array(10...2000))
        let summary = try await Self.run(
            harness, lines, database: #"postgres: "${PG_URL}""#, mode: "mode: upsert, key: [id]", direct: direct, url: database.url)
        #expect(summary.rejected == 2)
        #expect(summary.written.map(\.count) == [lines.count - 2])
        #expect(
            try db.rows(#"SELECT * FROM listings WHERE "kId" < 10 ORDER BY 1"#) == ["1|home 1|2", "2|home 2|2", "3|home 3|2", "6|home 6|2"])
        #expect(try db.rows(#"SELECT count(*) FROM listings"#) == ["1995"])
        #expect(
            try Self.deadLetters(harness) == [
                "3 rent.ndjson:3 refused: table 'listings' refused the row: new row for relation \"listings\" violates check "
                    + #"constraint "listings_kRooms_check" (Failing row contains (5, none, 0).) {"kId":5,"kName":"none","kRooms":0}"#,
                "5 rent.ndjson:5 refused: table 'listings' refused the row: insert or update on table \"listings\" violates foreign key "
                    + #"constraint "listings_kId_fkey" (Key (kId)=(9000) is not present in table "owners".) "#
                    + #"{"kId":9000,"kName":"home 9000","kRooms":2}"#,
            ])
        #expect(summary.writtenDirectly == (direct ? lines.count - 2 : 0))
    }

    @Test(arguments: [true, false]) func sqliteRefusedRowsAreDeadLetteredAndTheRestLoads(direct: Bool) async throws {
        let harness = try RunHarness()
        try harness.write("out/keep.txt", "")
        let db = try SQLiteFile(harness.path("out/l.db"))
        try db.execute(
            "CREATE TABLE listings (kId INTEGER UNIQUE, kName TEXT, kRooms INTEGER CHECK (kRooms > 0)); INSERT INTO listings VALUES (1, 'kept', 1)"
        )
        let lines = Self.lines([2, 1, 3]) + [#"{"id": 5, "name": "none", "rooms": 0}"#]
        let summary = try await Self.run(harness, lines, database: "sqlite: out/l.db", mode: "mode: append", direct: direct)
        #expect(summary.rejected == 2)
        #expect(summary.writtenDirectly == (direct ? 2 : 0))
        #expect(try db.rows("SELECT * FROM listings ORDER BY 1") == ["1|'kept'|1", "2|'home 2'|2", "3|'home 3'|2"])
        let dead = try Self.deadLetters(harness)
        #expect(dead.count == 2)
        #expect(dead.first?.hasPrefix("2 rent.ndjson:2 constraint: cannot insert into 'listings': UNIQUE constraint failed") == true)
        #expect(dead.last?.hasPrefix("4 rent.ndjson:4 constraint: cannot insert into 'listings': CHECK constraint failed") == true)
    }
}
