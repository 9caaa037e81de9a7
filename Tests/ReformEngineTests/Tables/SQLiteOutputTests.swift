import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformYAML
import Testing

/// `sqlite:` outputs: the chain's keys become a table's columns, loaded in one transaction per
/// run (replace, append or upsert on declared keys); a table that disagrees is never altered.
@Suite(.timeLimit(.minutes(10))) struct SQLiteOutputTests {
    /// A pipeline with one keyed mapping whose output is `output` (the inside of an `outputs:` entry).
    static func pipeline(_ output: String, price: String = "{ path: price, convert: double }") -> String {
        """
        reform: 1
        name: listings
        managers: { rent: {}, sale: {} }
        reformers:
          listing:
            keys: { id: kListingID, name: kListingName, price: kListingPrice, tags: kListingTags, open: kListingOpen }
            map: { id: id, name: name, price: \(price), tags: tags?, open: { path: open, optional: true, convert: bool } }
        runs:
          default:
            managers: [rent, sale]
            outputs:
              - { reform: [listing], \(output) }
        """
    }

    static let upsert = "sqlite: out/listings.db, table: listings, mode: upsert, key: [id], types: { id: int, tags: json }"

    static func record(_ id: Int, _ name: String, price: String = "1200", tags: String = #"["a"]"#, open: String = "true") -> String {
        #"{"id": \#(id), "name": "\#(name)", "price": \#(price), "tags": \#(tags), "open": \#(open)}"#
    }

    /// Runs the pipeline in `harness` over `rent` (and `sale`, when given) as NDJSON lines.
    @discardableResult
    static func run(_ harness: RunHarness, rent: [String], sale: [String]? = nil) async throws -> RunSummary {
        try harness.write("rent.ndjson", rent.map { $0 + "\n" }.joined())
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson"))]
        if let sale {
            try harness.write("sale.ndjson", sale.map { $0 + "\n" }.joined())
            options.inputs.append(("sale", harness.path("sale.ndjson")))
        }
        return try await harness.run("p.yaml", options: options)
    }

    @Test func theTableIsCreatedWithTheKeysAsColumnsTypedFromTheChain() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        let summary = try await Self.run(harness, rent: [Self.record(1, "loft"), Self.record(2, "studio", tags: #"{"k": [1, 2]}"#)])
        #expect(summary.written.map(\.output) == [harness.path("out/listings.db#listings")])
        #expect(summary.written.map(\.count) == [2])
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(
            try db.rows("SELECT name, type FROM pragma_table_info('listings')") == [
                "'kListingID'|'INTEGER'", "'kListingName'|'TEXT'", "'kListingPrice'|'REAL'", "'kListingTags'|'JSON'",
                "'kListingOpen'|'BOOLEAN'",
            ])
        #expect(
            try db.rows("SELECT * FROM listings") == [
                #"1|'loft'|1200.0|'["a"]'|1"#, #"2|'studio'|1200.0|'{"k":[1,2]}'|1"#,
            ])
        #expect(try db.rows("SELECT typeof(kListingOpen) FROM listings LIMIT 1") == ["'integer'"])
        #expect(try db.rows("SELECT \"unique\" FROM pragma_index_list('listings')") == ["1"], "the upsert key's unique index")
    }

    @Test func aKeyNothingTypesTakesTextAsItIsAndOtherValuesAsJSONText() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("sqlite: out/listings.db, table: listings, mode: append"))
        try await Self.run(harness, rent: [Self.record(1, "loft", tags: "[1, 2]"), Self.record(2, "studio", tags: #""x""#)])
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(
            try db.rows("SELECT type FROM pragma_table_info('listings') WHERE name IN ('kListingID', 'kListingTags')") == [
                "'TEXT'", "'TEXT'",
            ])
        #expect(try db.rows("SELECT kListingID, kListingTags FROM listings") == ["'1'|'[1,2]'", "'2'|'x'"])
    }

    @Test func appendKeepsTheRowsThereAndAddsTheRunsAfterThem() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("sqlite: out/listings.db, table: listings, mode: append, types: { id: int }"))
        try await Self.run(harness, rent: [Self.record(1, "loft")])
        try await Self.run(harness, rent: [Self.record(1, "loft"), Self.record(2, "studio")])
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(try db.rows("SELECT kListingID, kListingName FROM listings") == ["1|'loft'", "1|'loft'", "2|'studio'"])
    }

    @Test func upsertUpdatesTheRowWithTheSameKeyAndInsertsTheOthers() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        try await Self.run(harness, rent: [Self.record(1, "loft"), Self.record(2, "studio")])
        // Listing 1 changed (a new name and price), listing 3 is new, listing 2 did not come back.
        try await Self.run(harness, rent: [Self.record(1, "loft, renovated", price: "1500", open: "false"), Self.record(3, "house")])
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(
            try db.rows("SELECT kListingID, kListingName, kListingPrice, kListingOpen FROM listings ORDER BY kListingID") == [
                "1|'loft, renovated'|1500.0|0", "2|'studio'|1200.0|1", "3|'house'|1200.0|1",
            ])
        // The same key twice in one run: the later record wins.
        try await Self.run(harness, rent: [Self.record(3, "house"), Self.record(3, "house with garden")])
        #expect(try db.rows("SELECT kListingName FROM listings WHERE kListingID = 3") == ["'house with garden'"])
        #expect(try db.rows("SELECT count(*) FROM listings") == ["3"])
    }

    @Test func replaceEmptiesTheTableAndLoadsTheRunsRows() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("sqlite: out/listings.db, table: listings, types: { id: int }"))
        try await Self.run(harness, rent: [Self.record(1, "loft"), Self.record(2, "studio")])
        try await Self.run(harness, rent: [Self.record(3, "house")])
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(try db.rows("SELECT kListingID, kListingName FROM listings") == ["3|'house'"])
    }

    @Test func aValueThatDoesNotFitItsColumnIsDeadLetteredAndTheOthersAreLoaded() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        let summary = try await Self.run(
            harness, rent: [Self.record(1, "loft"), #"{"id": "one", "name": "bad id", "price": 1}"#, Self.record(2, "studio")],
            sale: [#"{"id": null, "name": "no id", "price": 1}"#])
        #expect(summary.rejected == 2)
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(try db.rows("SELECT kListingID FROM listings") == ["1", "2"])
        let stage = "table out/listings.db#listings"
        let dead = try harness.lines("reform-dead-letter.ndjson").map { try JSON.parse(Array($0.utf8)).objectValue ?? Object() }
        #expect(dead.map { $0["stage"]?.stringValue } == [stage, stage])
        #expect(dead.map { $0["code"]?.stringValue } == ["column-type", "null-key"])
        #expect(
            dead.first?["reason"]?.stringValue
                == "column kListingID of table 'listings' holds int: cannot convert 'id' (string \"one\") to int")
    }

    @Test func aTableWithOtherColumnsIsAnErrorNamingBothAndIsLeftUntouched() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        try harness.write("out/keep.txt", "")
        let db = try SQLiteFile(harness.path("out/listings.db"))
        try db.execute("CREATE TABLE listings (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO listings VALUES (7, 'kept')")
        await #expect {
            try await Self.run(harness, rent: [Self.record(1, "loft")])
        } throws: { error in
            (error as? RunError)?.message.replacing(harness.folder + "/", with: "")
                == "out/listings.db: table 'listings' has the columns (id INTEGER, title TEXT), but the pipeline's are "
                + "(kListingID INTEGER, kListingName TEXT, kListingPrice REAL, kListingTags JSON, kListingOpen BOOLEAN); "
                + "schema: freeze (the default) never changes a table: let the run add the new columns (schema: evolve), "
                + "load another table (table: NAME), or rename or drop this one "
                + "(DROP TABLE \"listings\") and the run creates it"
        }
        #expect(try db.rows("SELECT * FROM listings") == ["7|'kept'"])
        #expect(try db.rows("SELECT name FROM sqlite_master") == ["'listings'"])
    }

    @Test func upsertIntoATableWithoutAUniqueIndexOnTheKeyIsAnError() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("sqlite: out/listings.db, table: listings, mode: append, types: { id: int, tags: json }"))
        try await Self.run(harness, rent: [Self.record(1, "loft")])
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        await #expect {
            try await Self.run(harness, rent: [Self.record(1, "loft")])
        } throws: { error in
            (error as? RunError)?.message.replacing(harness.folder + "/", with: "").hasPrefix(
                "out/listings.db: table 'listings' has no unique index on (kListingID), which mode: upsert matches rows on; "
                    + "reform never alters a table: add one (CREATE UNIQUE INDEX \"listings_key\" ON \"listings\" (\"kListingID\"))")
                == true
        }
    }

    @Test func aRunThatFailsLeavesTheTableAsItWas() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("sqlite: out/listings.db, table: listings, types: { id: int }"))
        try await Self.run(harness, rent: [Self.record(1, "loft"), Self.record(2, "studio")])
        // Replace: the rows are deleted and rent's new rows inserted, then sale's input fails.
        try harness.write("rent.ndjson", Self.record(3, "house") + "\n")
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson")), ("sale", harness.path("missing.ndjson"))]
        await #expect(throws: RunError.self) { try await harness.run("p.yaml", options: options) }
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(try db.rows("SELECT kListingID, kListingName FROM listings") == ["1|'loft'", "2|'studio'"])
        #expect(!harness.exists("out/listings.db-journal"))
    }

    @Test func aFailedFirstRunCreatesNoTable() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        try harness.write("rent.ndjson", Self.record(1, "loft") + "\n")
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson")), ("sale", harness.path("missing.ndjson"))]
        await #expect(throws: RunError.self) { try await harness.run("p.yaml", options: options) }
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(try db.rows("SELECT name FROM sqlite_master").isEmpty)
    }

    @Test func tablesOfOneDatabaseCommitTogetherBesideAFile() async throws {
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            Self.pipeline(
                """
                sqlite: out/shop.db, table: a, types: { id: int } }
                      - { reform: [listing], sqlite: out/shop.db, table: b, mode: append }
                      - { reform: [listing], format: ndjson, path: out/listings.ndjson
                """))
        let summary = try await Self.run(harness, rent: [Self.record(1, "loft")], sale: [Self.record(2, "studio")])
        #expect(
            summary.written.map { $0.output.replacing(harness.folder + "/", with: "") } == [
                "out/shop.db#a", "out/shop.db#b", "out/listings.ndjson",
            ])
        let db = try SQLiteFile(harness.path("out/shop.db"))
        #expect(try db.rows("SELECT kListingID FROM a") == ["1", "2"])
        #expect(try db.rows("SELECT kListingID FROM b") == ["'1'", "'2'"])
        #expect(try harness.lines("out/listings.ndjson").count == 2)
    }

    @Test func parallelWorkersLoadTheSameRowsInTheSameOrder() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("sqlite: out/listings.db, table: listings, types: { id: int }"))
        try harness.write("rent.ndjson", (1...500).map { Self.record($0, "listing \($0)") + "\n" }.joined())
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson"))]
        options.jobs = 2
        options.batchSize = 512
        let summary = try await harness.run("p.yaml", options: options)
        #expect(summary.written.map(\.count) == [500])
        let db = try SQLiteFile(harness.path("out/listings.db"))
        #expect(try db.rows("SELECT kListingID FROM listings") == (1...500).map(String.init))
    }

    @Test func theFastPathAndParallelWorkersLoadTheSameRowsAndRejectTheSameRecordsAsTheGeneralPath() async throws {
        let yaml = """
            reform: 1
            managers: { rent: {} }
            reformers:
              listing:
                keys: { id: kID, name: kName, price: kPrice, open: kOpen, extra: kExtra, when: kWhen }
                map: { id: id, name: name, price: { path: price, convert: double }, open: open, extra: extra, when: when }
            runs:
              default:
                outputs:
                  - { reform: [listing], sqlite: out/l.db, table: l, mode: upsert, key: [id], types: { id: int, open: bool, when: date } }
            """
        let lines = [
            #"{"id": 1, "name": "plain", "price": 12, "open": true, "extra": "x", "when": "2024-05-01"}"#,
            #"{"id": 2, "name": "esc \"q\" \u4e0a\n", "price": 1.5, "open": false, "extra": [1, {"a": null}], "when": 1714521600}"#,
            #"{"id": 3, "name": "上海 浦东", "price": -7, "open": null, "extra": 123456789012345678, "when": null}"#,
            #"{"id": "4", "name": null, "price": "2.25", "open": "yes", "extra": true, "when": "2024-05-01T10:00:00Z"}"#,
            #"{"id": 5, "name": "no price", "open": true, "extra": 1, "when": null}"#,
            #"{"id": null, "name": "null key", "price": 1, "open": true, "extra": 1, "when": null}"#,
            #"{"id": "six", "name": "bad key", "price": 1, "open": true, "extra": 1, "when": null}"#,
            #"{"id": 7, "name": "bad bool", "price": 1, "open": 2, "extra": -0, "when": "never"}"#,
            #"{"id": 8, "name": "bad date", "price": 1, "open": 1, "extra": 1.0e2, "when": "never"}"#,
            #"{"id": 1, "name": "plain, again", "price": 13, "open": false, "extra": "y", "when": "2024-05-02"}"#,
            #"{"id": 9, "name": "broken""#,
            #"[1, 2]"#,
        ]
        var tables: [[String]] = []
        var deadLetters: [[String]] = []
        for (direct, jobs) in [(true, 1), (false, 1), (true, 2)] {
            let harness = try RunHarness()
            try harness.write("p.yaml", yaml)
            try harness.write("rent.ndjson", lines.map { $0 + "\n" }.joined())
            var options = RunOptions()
            options.inputs = [("rent", harness.path("rent.ndjson"))]
            options.directWrites = direct
            options.jobs = jobs
            options.batchSize = 300
            let summary = try await harness.run("p.yaml", options: options)
            #expect(direct && jobs == 1 ? summary.writtenDirectly > 0 : summary.writtenDirectly == 0)
            let db = try SQLiteFile(harness.path("out/l.db"))
            tables.append(try db.rows("SELECT *, typeof(kExtra) FROM l ORDER BY kID"))
            deadLetters.append(try harness.lines("reform-dead-letter.ndjson").map { $0.replacing(harness.folder, with: "") })
        }
        #expect(tables[0] == tables[1] && tables[0] == tables[2])
        #expect(deadLetters[0] == deadLetters[1] && deadLetters[0] == deadLetters[2])
        #expect(
            tables[0] == [
                "1|'plain, again'|13.0|0|'y'|'2024-05-02'|'text'",
                #"2|'esc "q" 上\#n'|1.5|0|'[1,{"a":null}]'|'2024-05-01T00:00:00Z'|'text'"#,
                "3|'上海 浦东'|-7.0|NULL|'123456789012345678'|NULL|'text'",
                "4|NULL|2.25|1|'true'|'2024-05-01T10:00:00Z'|'text'",
            ])
        #expect(deadLetters[0].count == 7)
        #expect(deadLetters[0].contains { $0.contains(#""stage":"reformer 'listing' (output out/l.db#l)""#) })
        #expect(deadLetters[0].contains { $0.contains(#""stage":"table out/l.db#l""#) })
    }

    // MARK: - Checked when the pipeline loads

    /// The first line of each diagnostic of loading `yaml`, with the folder left out.
    static func diagnostics(_ yaml: String) throws -> [String] {
        try loadDiagnostics(yaml)
    }

    @Test func aDeclaredTypeTheChainContradictsIsALocatedError() throws {
        let yaml = Self.pipeline(
            "sqlite: out/listings.db, table: listings, types: { price: int, open: date }",
            price: "{ path: price, convert: double }")
        let found = try Self.diagnostics(yaml)
        #expect(
            found == [
                "p.yaml:12:88: error: 'price' is declared int in 'types' of run 'default', but reformer 'listing' (for manager 'rent') "
                    + "makes it double; declare it double, or convert it in the reformer (convert: int)",
                "p.yaml:12:99: error: 'open' is declared date in 'types' of run 'default', but reformer 'listing' (for manager 'rent') "
                    + "makes it bool; declare it bool, or convert it in the reformer (convert: date)",
            ])
    }

    @Test func managersThatMakeAKeyOfTwoTypesAreALocatedError() throws {
        let yaml = """
            reform: 1
            managers: { rent: {}, sale: {} }
            reformers:
              listing:
                keys: { id: kID, price: kPrice }
                from:
                  rent: { id: id, price: { path: price, convert: int } }
                  sale: { id: id, price: { path: price, convert: date } }
            runs:
              default:
                outputs:
                  - { reform: [listing], sqlite: out/l.db, table: listings }
            """
        let found = try Self.diagnostics(yaml)
        #expect(
            found == [
                "p.yaml:12:38: error: the sqlite output of run 'default': 'price' is int from reformer 'listing' (for manager 'rent') "
                    + "but date from reformer 'listing' (for manager 'sale'), and a column has one type; convert both the same way, "
                    + "or declare the column in 'types'"
            ])
    }

    @Test func tableOutputsAreCheckedAgainstTheChainsKeys() throws {
        let yaml = """
            reform: 1
            managers: { rent: {} }
            reformers:
              listing: { keys: { id: kID, name: kName }, map: { id: id, name: name } }
              raw: { steps: [ { limit: 5 } ] }
            runs:
              default:
                outputs:
                  - { reform: [raw], sqlite: out/l.db, table: raw }
                  - { reform: [listing], sqlite: out/l.db, table: listings, mode: upsert }
                  - { reform: [listing], sqlite: out/l.db, table: sqlite_x, mode: upsert, key: [nme], types: { idd: int, name: number } }
                  - { reform: [listing], sqlite: out/l.db, table: t, key: [id], format: csv }
                  - { reform: [listing], sqlite: ../l.db, table: t2 }
                  - { reform: [listing], sqlite: out/./l.db, table: LISTINGS, mode: append }
            """
        let found = try Self.diagnostics(yaml)
        #expect(
            found == [
                "p.yaml:9:34: error: the sqlite output of run 'default' needs records with declared keys (the table's columns), "
                    + "but its last reformer, 'raw', declares none; end the chain with a reformer that declares 'keys:'",
                "p.yaml:10:71: error: the sqlite output of run 'default' has mode: upsert, which needs 'key': the keys that identify "
                    + "a row, as in key: [id]",
                "p.yaml:11:55: error: 'table' of run 'default' must be a table name, and names starting with sqlite_, pg_ or _reform_ "
                    + "belong to SQLite, PostgreSQL and Reform; give one such as listings",
                "p.yaml:11:85: error: 'key' of run 'default' names 'nme', which is not one of the chain's keys; did you mean 'name'? "
                    + "(its keys: id, name)",
                "p.yaml:11:100: error: 'types' of run 'default' names 'idd', which is not one of the chain's keys; did you mean 'id'? "
                    + "(its keys: id, name)",
                "p.yaml:11:116: error: unknown column type 'number'; expected one of: int, double, bool, text, date, json",
                "p.yaml:12:58: error: 'key' of run 'default' is for mode: upsert (the rows it matches are updated) or child_tables "
                    + "(the parent key their rows carry); remove it, or set mode: upsert",
                "p.yaml:12:69: error: 'format' does not apply to the sqlite output of run 'default': it writes rows into a table "
                    + "(its columns are the chain's keys); declare a separate output for a file",
                "p.yaml:13:38: error: output path '../l.db' of run 'default' leads outside the working folder; give a relative "
                    + "path inside it (run reform from where the outputs belong), or pass --allow-outside-paths to allow it",
                "p.yaml:14:9: error: two outputs of run 'default' load table 'LISTINGS' of out/./l.db (the first at line 10); "
                    + "give each output a table of its own",
            ])
    }

    @Test(arguments: [
        (
            "sqlite: out/issues.db, table: issues",
            "output 1 of run 'default' replaces table 'issues', but an incremental run lands only what changed since the last run; "
                + "set mode: upsert with key: [...] (which also drops the records a lookback lands again), or mode: append"
        ),
        (
            "sqlite: out/issues.db, table: issues, mode: append }\n      - { reform: [issue], path: out/issues.ndjson",
            "output 2 of run 'default' writes a file, and the run also loads table 'issues': an incremental run keeps its state "
                + "in one place, committed with its outputs; give it only table outputs of one database, or only files"
        ),
        (
            "sqlite: out/issues.db, table: issues, mode: append }\n      - { reform: [issue], sqlite: out/other.db, table: t, mode: append",
            "output 2 of run 'default' loads a table of another database than 'issues': an incremental run keeps its state in "
                + "the tables' database, committed in one transaction with them; load one database per run"
        ),
    ])
    func anIncrementalRunThatCannotKeepItsStateWithItsTableIsRefusedBeforeAnythingIsWritten(output: String, message: String)
        async throws
    {
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            """
            reform: 1
            name: issues
            services: { gh: { base_url: "http://gh.test" } }
            managers:
              issues: { service: gh, path: /issues, incremental: { cursor: updated_at, param: since } }
            reformers:
              issue: { keys: { id: kIssueID }, map: { id: id } }
            runs:
              default:
                outputs:
                  - { reform: [issue], \(output) }
            """)
        await #expect {
            try await harness.run("p.yaml", transport: ScriptedTransport())
        } throws: { error in
            (error as? RunError)?.message == message
        }
        #expect(!harness.exists("out/issues.db"))
    }
}
