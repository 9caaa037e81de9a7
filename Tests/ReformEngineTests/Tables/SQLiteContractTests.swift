import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// `schema:` of an SQLite table output: what a run does when the table there differs from the
/// pipeline's columns (a key added, a key removed, a type changed). `freeze` (the default) stops;
/// `evolve` adds columns in the run's transaction and logs them; `discard_row` and
/// `discard_value` keep the table as it is and dead-letter the row or leave the value out.
@Suite(.timeLimit(.minutes(10))) struct SQLiteContractTests {
    /// A pipeline whose reformer declares `keys` (each mapped from the field of its name), loading
    /// `listings` in out/l.db with `settings` (`mode`, `schema`, `types`, …).
    static func pipeline(
        keys: [String], settings: String, converting: [String: String] = [:], database: String = "sqlite: out/l.db", optional: Bool = true
    ) -> String {
        let declared = keys.map { "\($0): k\($0.prefix(1).uppercased() + $0.dropFirst())" }.joined(separator: ", ")
        let mapped = keys.map { key in
            converting[key].map { "\(key): { path: \(key), optional: true, convert: \($0) }" } ?? "\(key): \(key)\(optional ? "?" : "")"
        }
        return """
            reform: 1
            name: homes
            managers: { rent: {} }
            reformers:
              listing:
                keys: { \(declared) }
                map: { \(mapped.joined(separator: ", ")) }
            runs:
              default:
                outputs:
                  - { reform: [listing], \(database), table: listings, \(settings) }
            """
    }

    /// Runs p.yaml over `lines` (NDJSON records for `rent`), with `environment`.
    @discardableResult
    static func run(_ harness: RunHarness, _ lines: [String], environment: [String: String] = [:], direct: Bool = false) async throws
        -> RunSummary
    {
        try harness.write("rent.ndjson", lines.map { $0 + "\n" }.joined())
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson"))]
        options.deadLetterPath = harness.path("dead.ndjson")
        options.environment = environment
        options.directWrites = direct
        return try await harness.run("p.yaml", options: options)
    }

    /// The dead-letter file's records, as (code, reason) pairs.
    static func deadLetters(_ harness: RunHarness) throws -> [String] {
        try harness.lines("dead.ndjson").map { line in
            let entry = try JSON.parse(Array(line.utf8)).objectValue ?? Object()
            return (entry["code"]?.stringValue ?? "") + ": " + (entry["reason"]?.stringValue ?? "")
        }
    }

    static let firstRun = [#"{"id": 1, "name": "loft"}"#, #"{"id": 2, "name": "studio"}"#]

    @Test func freezeIsTheDefaultAndStopsAtAnAddedKeyLeavingTheTableAsItWas() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(keys: ["id", "name"], settings: "mode: append, types: { id: int }"))
        try await Self.run(harness, Self.firstRun)
        try harness.write("p.yaml", Self.pipeline(keys: ["id", "name", "area"], settings: "mode: append, types: { id: int }"))
        await #expect {
            try await Self.run(harness, [#"{"id": 3, "name": "house", "area": 90}"#])
        } throws: { error in
            (error as? RunError)?.message.contains(
                "table 'listings' has the columns (kId INTEGER, kName TEXT), but the pipeline's are (kId INTEGER, kName TEXT, kArea TEXT); "
                    + "schema: freeze (the default) never changes a table: let the run add the new columns (schema: evolve)") == true
        }
        let db = try SQLiteFile(harness.path("out/l.db"))
        #expect(try db.rows("SELECT name FROM pragma_table_info('listings')") == ["'kId'", "'kName'"])
        #expect(try db.rows("SELECT count(*) FROM listings") == ["2"])
    }

    @Test func evolveAddsTheNewColumnsInTheRunsTransactionAndLogsThem() async throws {
        let harness = try RunHarness()
        try harness.write(
            "p.yaml", Self.pipeline(keys: ["id", "name"], settings: "mode: upsert, key: [id], schema: evolve, types: { id: int }"))
        let created = try await Self.run(harness, Self.firstRun)
        #expect(created.tableChanges.isEmpty, "a table the run makes is not a change")
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "area", "open"], settings: "mode: upsert, key: [id], schema: evolve, types: { id: int }",
                converting: ["area": "double", "open": "bool"]))
        let summary = try await Self.run(
            harness, [#"{"id": 2, "name": "studio", "area": 31.5, "open": true}"#, #"{"id": 3, "name": "house"}"#])
        let table = harness.path("out/l.db") + "#listings"
        #expect(
            summary.tableChanges == [
                "\(table): added column kArea (REAL), schema: evolve", "\(table): added column kOpen (BOOLEAN), schema: evolve",
            ])
        #expect(summary.rejected == 0)
        let db = try SQLiteFile(harness.path("out/l.db"))
        #expect(
            try db.rows("SELECT name, type FROM pragma_table_info('listings')") == [
                "'kId'|'INTEGER'", "'kName'|'TEXT'", "'kArea'|'REAL'", "'kOpen'|'BOOLEAN'",
            ])
        #expect(try db.rows("SELECT * FROM listings ORDER BY kId") == ["1|'loft'|NULL|NULL", "2|'studio'|31.5|1", "3|'house'|NULL|NULL"])
        #expect(
            try db.rows("SELECT pipeline, table_name, change, column_name, column_type FROM _reform_schema_log") == [
                "'homes'|'listings'|'add column'|'kArea'|'REAL'", "'homes'|'listings'|'add column'|'kOpen'|'BOOLEAN'",
            ])
        #expect(try db.rows("SELECT count(*) FROM _reform_schema_log WHERE changed_at LIKE '____-__-__T__:__:__.___Z'") == ["2"])
        // The next run has nothing to add: nothing changes, nothing is logged.
        let again = try await Self.run(harness, [#"{"id": 4, "name": "barn", "area": 200}"#])
        #expect(again.tableChanges.isEmpty)
        #expect(try db.rows("SELECT count(*) FROM _reform_schema_log") == ["2"])
        // A file read back through `reform cat` does not list the log as a table of its own.
        #expect(try db.rows("SELECT kArea FROM listings WHERE kId = 4") == ["200.0"])
    }

    @Test func evolveKeepsAColumnThePipelineNoLongerHasAndLeavesItNullInNewRows() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(keys: ["id", "name"], settings: "mode: append, schema: evolve, types: { id: int }"))
        try await Self.run(harness, Self.firstRun)
        try harness.write("p.yaml", Self.pipeline(keys: ["id"], settings: "mode: append, schema: evolve, types: { id: int }"))
        let summary = try await Self.run(harness, [#"{"id": 3, "name": "house"}"#])
        #expect(summary.tableChanges.isEmpty)
        let db = try SQLiteFile(harness.path("out/l.db"))
        #expect(try db.rows("SELECT * FROM listings") == ["1|'loft'", "2|'studio'", "3|NULL"])
    }

    @Test func evolveLoadsIntoAWiderColumnButNeverChangesAColumnsType() async throws {
        let harness = try RunHarness()
        try harness.write("out/keep.txt", "")
        let db = try SQLiteFile(harness.path("out/l.db"))
        try db.execute("CREATE TABLE listings (kId INTEGER, kName TEXT, kPrice REAL)")
        // The pipeline makes integers of price, which a REAL column holds: loaded as they are.
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "price"], settings: "mode: append, schema: evolve, types: { id: int }", converting: ["price": "int"]))
        try await Self.run(harness, [#"{"id": 1, "name": "loft", "price": "1200"}"#])
        #expect(try db.rows("SELECT kPrice, typeof(kPrice) FROM listings") == ["1200.0|'real'"])
        // Text into the INTEGER id column is a change of type: refused, naming both, before anything loads.
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "price"], settings: "mode: append, schema: evolve", converting: ["id": "string", "price": "int"]))
        await #expect {
            try await Self.run(harness, [#"{"id": 2, "name": "studio", "price": 1}"#])
        } throws: { error in
            (error as? RunError)?.message.contains(
                "table 'listings': kId is INTEGER in the table, but the pipeline's values are TEXT; schema: evolve adds columns "
                    + "but never changes a column's type") == true
        }
        #expect(try db.rows("SELECT count(*) FROM listings") == ["1"])
    }

    @Test func aRunThatFailsLeavesNeitherTheAddedColumnNorItsLogEntry() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(keys: ["id", "name"], settings: "mode: append, schema: evolve, types: { id: int }"))
        try await Self.run(harness, Self.firstRun)
        let db = try SQLiteFile(harness.path("out/l.db"))
        try db.execute("CREATE TABLE other (x TEXT)")
        // The second output finds a table it may not change after the first added its column.
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "area"],
                settings: "mode: append, schema: evolve, types: { id: int } }\n"
                    + "      - { reform: [listing], sqlite: out/l.db, table: other, mode: append"))
        await #expect(throws: RunError.self) { try await Self.run(harness, [#"{"id": 3, "name": "house", "area": 90}"#]) }
        #expect(try db.rows("SELECT name FROM pragma_table_info('listings')") == ["'kId'", "'kName'"])
        #expect(try db.rows("SELECT name FROM sqlite_master WHERE name = '_reform_schema_log'") == [])
        #expect(try db.rows("SELECT count(*) FROM listings") == ["2"])
    }

    @Test func evolveRefusesATableWhoseDroppedColumnIsRequired() async throws {
        let harness = try RunHarness()
        try harness.write("out/keep.txt", "")
        let db = try SQLiteFile(harness.path("out/l.db"))
        try db.execute("CREATE TABLE listings (kId INTEGER, kName TEXT, kOwner TEXT NOT NULL, kSeen TEXT NOT NULL DEFAULT 'no')")
        try harness.write("p.yaml", Self.pipeline(keys: ["id", "name"], settings: "mode: append, schema: evolve, types: { id: int }"))
        await #expect {
            try await Self.run(harness, Self.firstRun)
        } throws: { error in
            (error as? RunError)?.message.contains(
                "table 'listings' has the column kOwner, NOT NULL without a default, which the pipeline does not have") == true
        }
    }

    @Test func discardRowDeadLettersRowsWithAValueTheTableHasNoColumnForAndLoadsTheRest() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(keys: ["id", "name"], settings: "mode: append, types: { id: int }"))
        try await Self.run(harness, Self.firstRun)
        try harness.write(
            "p.yaml", Self.pipeline(keys: ["id", "name", "area"], settings: "mode: append, schema: discard_row, types: { id: int }"))
        let summary = try await Self.run(
            harness, [#"{"id": 3, "name": "house", "area": 90}"#, #"{"id": 4, "name": "barn"}"#, #"{"id": "five", "name": "shed"}"#])
        #expect(summary.rejected == 2)
        #expect(summary.tableChanges.isEmpty)
        #expect(
            try Self.deadLetters(harness) == [
                "unknown-column: table 'listings' has no column kArea for 'area' (90), and schema: discard_row keeps the table "
                    + "as it is; set schema: evolve to add the column, or discard_value to load the row without the value",
                "column-type: column kId of table 'listings' holds int: cannot convert 'id' (string \"five\") to int",
            ])
        let db = try SQLiteFile(harness.path("out/l.db"))
        #expect(try db.rows("SELECT * FROM listings") == ["1|'loft'", "2|'studio'", "4|'barn'"])
        #expect(try db.rows("SELECT name FROM pragma_table_info('listings')") == ["'kId'", "'kName'"])
    }

    @Test func discardValueLeavesOutValuesTheTableCannotHoldAndCountsThem() async throws {
        let harness = try RunHarness()
        try harness.write("out/keep.txt", "")
        let db = try SQLiteFile(harness.path("out/l.db"))
        try db.execute("CREATE TABLE listings (kId INTEGER UNIQUE, kName TEXT, kRooms INTEGER)")
        // The pipeline's rooms are text now, and it has an area the table lacks.
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "rooms", "area"], settings: "mode: upsert, key: [id], schema: discard_value, types: { id: int }"))
        let summary = try await Self.run(
            harness,
            [
                #"{"id": 1, "name": "loft", "rooms": "3", "area": 90}"#, #"{"id": 2, "name": "studio", "rooms": "one"}"#,
                #"{"id": "x", "name": "no key"}"#,
            ])
        #expect(summary.rejected == 1, "a key that does not fit is still a rejection: every row needs its key")
        #expect(summary.discardedValues.map(\.count) == [2])
        #expect(summary.description.contains("; 2 values left out of \(harness.path("out/l.db"))#listings (schema: discard_value)"))
        #expect(try db.rows("SELECT * FROM listings ORDER BY kId") == ["1|'loft'|3", "2|'studio'|NULL"])
    }

    @Test func aContractOtherThanFreezeChangesNothingWhenTheTableAgrees() async throws {
        for contract in ["evolve", "discard_row", "discard_value"] {
            let harness = try RunHarness()
            try harness.write(
                "p.yaml",
                Self.pipeline(keys: ["id", "name"], settings: "mode: append, schema: \(contract), types: { id: int }", optional: false))
            try await Self.run(harness, Self.firstRun)
            let summary = try await Self.run(harness, Self.firstRun, direct: true)
            #expect(summary.tableChanges.isEmpty && summary.discardedValues.isEmpty && summary.rejected == 0, "\(contract)")
            let db = try SQLiteFile(harness.path("out/l.db"))
            #expect(try db.rows("SELECT count(*) FROM listings") == ["4"], "\(contract)")
            #expect(summary.writtenDirectly == 2, "\(contract): the table agrees, so the fast path binds the lines")
        }
    }

    @Test func aDiscardingContractRefusesATableWithNoneOfThePipelinesColumns() async throws {
        let harness = try RunHarness()
        try harness.write("out/keep.txt", "")
        let db = try SQLiteFile(harness.path("out/l.db"))
        try db.execute("CREATE TABLE listings (title TEXT)")
        try harness.write("p.yaml", Self.pipeline(keys: ["id", "name"], settings: "mode: append, schema: discard_value"))
        await #expect {
            try await Self.run(harness, Self.firstRun)
        } throws: { error in
            (error as? RunError)?.message.contains(
                "table 'listings' has none of the pipeline's columns (kId, kName), so schema: discard_value would load empty rows") == true
        }
    }

    @Test func widenGivesAColumnTheWiderTypeItsValuesNeedKeepingItsConstraintsIndexesAndRows() async throws {
        let harness = try RunHarness()
        try harness.write("out/keep.txt", "")
        let db = try SQLiteFile(harness.path("out/l.db"))
        try db.execute(
            #"CREATE TABLE listings ("kId" INTEGER NOT NULL UNIQUE, "kName" TEXT COLLATE NOCASE, "kArea" INT DEFAULT 0 "#
                + #"CHECK ("kArea" >= 0), "kOpen" BOOLEAN); CREATE INDEX by_area ON listings ("kArea"); "#
                + #"CREATE TRIGGER stamp AFTER INSERT ON listings BEGIN SELECT 1; END; CREATE VIEW areas AS SELECT "kArea" FROM listings; "#
                + "INSERT INTO listings VALUES (1, 'loft', 90, 1)")
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "name", "area", "open"], settings: "mode: upsert, key: [id], schema: evolve, widen: true, types: { id: int }",
                converting: ["area": "double", "open": "string"]))
        let summary = try await Self.run(harness, [#"{"id": 2, "name": "studio", "area": 31.5, "open": "weekends"}"#])
        let table = harness.path("out/l.db") + "#listings"
        #expect(
            summary.tableChanges == [
                "\(table): widened column kArea from INT to REAL, schema: evolve, widen: true",
                "\(table): widened column kOpen from BOOLEAN to TEXT, schema: evolve, widen: true",
            ])
        #expect(
            try db.rows("SELECT sql FROM sqlite_master WHERE name = 'listings'") == [
                #"'CREATE TABLE "listings" ("kId" INTEGER NOT NULL UNIQUE, "kName" TEXT COLLATE NOCASE, "kArea" REAL DEFAULT 0 "#
                    + #"CHECK ("kArea" >= 0), "kOpen" TEXT)'"#
            ])
        #expect(
            try db.rows("SELECT *, typeof(kArea), typeof(kOpen) FROM listings ORDER BY 1") == [
                "1|'loft'|90.0|'1'|'real'|'text'", "2|'studio'|31.5|'weekends'|'real'|'text'",
            ], "the rows there take the wider types too")
        #expect(
            try db.rows("SELECT type, name FROM sqlite_master WHERE tbl_name = 'listings' AND sql IS NOT NULL ORDER BY 2") == [
                "'index'|'by_area'", "'table'|'listings'", "'trigger'|'stamp'",
            ])
        #expect(try db.rows("SELECT * FROM areas ORDER BY 1") == ["31.5", "90.0"])
        #expect(
            try db.rows("SELECT change, column_name, column_type FROM _reform_schema_log") == [
                "'widen column'|'kArea'|'REAL'", "'widen column'|'kOpen'|'TEXT'",
            ])
        // The table's check is still there: it refuses a row.
        let refused = try await Self.run(harness, [#"{"id": 3, "name": "barn", "area": -1, "open": "no"}"#])
        #expect(refused.rejected == 1)
        let dead = try Self.deadLetters(harness)
        #expect(dead.first?.contains("CHECK constraint failed") == true, "\(dead)")
        // Never narrower: a bool key into the TEXT column is refused, naming the rule.
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "area"], settings: "mode: upsert, key: [id], schema: evolve, widen: true, types: { id: int }",
                converting: ["area": "bool"]))
        await #expect {
            try await Self.run(harness, [#"{"id": 4, "area": true}"#])
        } throws: { error in
            (error as? RunError)?.message.contains(
                "kArea is REAL in the table, but the pipeline's values are BOOLEAN; widen: true changes a type only to a wider one "
                    + "(integer → bigint → double → text)") == true
        }
        #expect(
            try loadDiagnostics(Self.pipeline(keys: ["id"], settings: "widen: true")).contains {
                $0.contains("'widen' of run 'default' is for schema: evolve")
            })
    }

    /// The rebuild that widens an SQLite column keeps an AUTOINCREMENT table's counter: an id
    /// that was used (its row deleted since) is not given again.
    @Test func wideningKeepsAnAutoincrementCounter() async throws {
        let harness = try RunHarness()
        try harness.write("out/keep.txt", "")
        let db = try SQLiteFile(harness.path("out/l.db"))
        try db.execute(
            #"CREATE TABLE listings ("kRow" INTEGER PRIMARY KEY AUTOINCREMENT, "kId" INTEGER UNIQUE, "kArea" INTEGER); "#
                + #"INSERT INTO listings ("kId", "kArea") VALUES (1, 10), (2, 20), (3, 30); DELETE FROM listings WHERE "kId" = 3"#)
        try harness.write(
            "p.yaml",
            Self.pipeline(
                keys: ["id", "area"], settings: "mode: upsert, key: [id], schema: evolve, widen: true, types: { id: int }",
                converting: ["area": "double"]))
        let summary = try await Self.run(harness, [#"{"id": 4, "area": 40.5}"#])
        #expect(summary.tableChanges.count == 1)
        #expect(try db.rows(#"SELECT "kRow", "kId", "kArea" FROM listings ORDER BY 1"#) == ["1|1|10.0", "2|2|20.0", "4|4|40.5"])
        #expect(try db.rows("SELECT seq FROM sqlite_sequence WHERE name = 'listings'") == ["4"])
    }

    @Test func anUnknownContractIsAnErrorWithTheChoices() throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(keys: ["id"], settings: "schema: evolved"))
        #expect(throws: PipelineLoadError.self) { try harness.load("p.yaml") }
        do { _ = try harness.load("p.yaml") } catch {
            #expect(
                error.diagnostics.map(\.message).contains {
                    $0.hasPrefix("unknown schema contract 'evolved'") && $0.contains("evolve") && $0.contains("discard_value")
                })
        }
    }
}
