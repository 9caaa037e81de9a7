import Foundation
import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// `postgres:` outputs against a real server (``PostgresServer``: a throwaway cluster, or
/// `REFORM_TEST_POSTGRES_URL`): the chain's keys become a table's columns, loaded with COPY in
/// one transaction per run (replace, append or upsert on declared keys); a table that disagrees
/// is never altered; the URL's password is never printed.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
struct PostgresOutputTests {
    /// ``SQLiteOutputTests/pipeline(_:price:)`` with `output` loading a PostgreSQL table at `${PG_URL}`.
    static func pipeline(_ output: String) -> String {
        SQLiteOutputTests.pipeline(#"postgres: "${PG_URL}", "# + output)
    }

    static let upsert = "table: listings, mode: upsert, key: [id], types: { id: int, tags: json }"

    static func record(_ id: Int, _ name: String, price: String = "1200", tags: String = #"["a"]"#, open: String = "true") -> String {
        SQLiteOutputTests.record(id, name, price: price, tags: tags, open: open)
    }

    /// Runs the pipeline in `harness` over `rent` (and `sale`) into `database`.
    @discardableResult
    static func run(_ harness: RunHarness, _ database: PostgresDatabase, rent: [String], sale: [String]? = nil, url: String? = nil)
        async throws -> RunSummary
    {
        try harness.write("rent.ndjson", rent.map { $0 + "\n" }.joined())
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson"))]
        if let sale {
            try harness.write("sale.ndjson", sale.map { $0 + "\n" }.joined())
            options.inputs.append(("sale", harness.path("sale.ndjson")))
        }
        options.environment = ["PG_URL": url ?? database.url]
        return try await harness.run("p.yaml", options: options)
    }

    @Test func theTableIsCreatedWithTheKeysAsColumnsInPostgresTypes() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        let summary = try await Self.run(
            harness, database, rent: [Self.record(1, "loft"), Self.record(2, "studio", tags: #"{"k": [1, 2]}"#)])
        #expect(summary.written.map(\.count) == [2])
        #expect(summary.written.map(\.output) == [database.url + "#listings"])
        let db = try database.client()
        #expect(
            try db.rows(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'listings' ORDER BY ordinal_position")
                == [
                    "kListingID|bigint", "kListingName|text", "kListingPrice|double precision", "kListingTags|jsonb",
                    "kListingOpen|boolean",
                ])
        #expect(
            try db.rows("SELECT * FROM listings ORDER BY 1") == [
                #"1|loft|1200|["a"]|t"#, #"2|studio|1200|{"k": [1, 2]}|t"#,
            ])
        #expect(try db.rows("SELECT indisunique FROM pg_index WHERE indrelid = 'listings'::regclass") == ["t"])
    }

    @Test func datesAreTimestampsInUTC() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            """
            reform: 1
            managers: { rent: {} }
            reformers: { l: { keys: { id: kID, when: kWhen }, map: { id: id, when: { path: when, convert: date } } } }
            runs: { default: { outputs: [ { reform: [l], postgres: "${PG_URL}", table: l, types: { id: int } } ] } }
            """)
        try await Self.run(harness, database, rent: [#"{"id": 1, "when": "2024-05-01T12:30:00+02:00"}"#, #"{"id": 2, "when": 0}"#])
        let db = try database.client()
        #expect(try db.rows("SELECT data_type FROM information_schema.columns WHERE column_name = 'kWhen'") == ["timestamp with time zone"])
        let when = try db.rows(
            #"SELECT "kWhen" = '2024-05-01T10:30:00Z'::timestamptz, "kWhen" = 'epoch'::timestamptz FROM l ORDER BY "kID""#)
        #expect(when == ["t|f", "f|t"])
    }

    @Test func appendKeepsTheRowsThereAndAddsTheRunsAfterThem() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("table: listings, mode: append, types: { id: int }"))
        try await Self.run(harness, database, rent: [Self.record(1, "loft")])
        try await Self.run(harness, database, rent: [Self.record(1, "loft"), Self.record(2, "studio")])
        #expect(try database.client().rows(#"SELECT "kListingID", "kListingName" FROM listings"#) == ["1|loft", "1|loft", "2|studio"])
    }

    @Test func upsertUpdatesTheRowWithTheSameKeyAndTheLaterRecordOfAKeyWins() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        try await Self.run(harness, database, rent: [Self.record(1, "loft"), Self.record(2, "studio")])
        try await Self.run(
            harness, database, rent: [Self.record(1, "loft, renovated", price: "1500", open: "false"), Self.record(3, "house")])
        let db = try database.client()
        let query = #"SELECT "kListingID", "kListingName", "kListingPrice", "kListingOpen" FROM listings ORDER BY 1"#
        #expect(try db.rows(query) == ["1|loft, renovated|1500|f", "2|studio|1200|t", "3|house|1200|t"])
        // The same key three times in one run (a lookback window): the last record wins.
        try await Self.run(
            harness, database, rent: [Self.record(3, "house"), Self.record(3, "house with garden"), Self.record(3, "house, sold")])
        #expect(try db.rows(#"SELECT "kListingName" FROM listings WHERE "kListingID" = 3"#) == ["house, sold"])
        #expect(try db.rows("SELECT count(*) FROM listings") == ["3"])
    }

    @Test func replaceEmptiesTheTableAndLoadsTheRunsRows() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("table: listings, types: { id: int }"))
        try await Self.run(harness, database, rent: [Self.record(1, "loft"), Self.record(2, "studio")])
        try await Self.run(harness, database, rent: [Self.record(3, "house")])
        #expect(try database.client().rows(#"SELECT "kListingID", "kListingName" FROM listings"#) == ["3|house"])
    }

    @Test func textWithTabsNewlinesAndBackslashesArrivesAsItWas() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("table: listings, types: { id: int }"))
        try await Self.run(harness, database, rent: [Self.record(1, #"a\tb\nc\\d\r上"#, tags: #"{"x": "\\N"}"#)])
        let found = try database.client().rows(#"SELECT "kListingName" = E'a\tb\nc\\d\r上', "kListingTags" FROM listings"#)
        // Tags are not typed: text, the value's compact JSON.
        #expect(found == [#"t|{"x":"\\N"}"#])
    }

    @Test func aValueThatDoesNotFitItsColumnIsDeadLetteredAndTheOthersAreLoaded() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        let summary = try await Self.run(
            harness, database,
            rent: [
                Self.record(1, "loft"), #"{"id": "one", "name": "bad id", "price": 1}"#, Self.record(2, "studio"),
                Self.record(4, #"nul \u0000 inside"#),
            ],
            sale: [#"{"id": null, "name": "no id", "price": 1}"#])
        #expect(summary.rejected == 3)
        #expect(try database.client().rows(#"SELECT "kListingID" FROM listings ORDER BY 1"#) == ["1", "2"])
        let dead = try harness.lines("reform-dead-letter.ndjson").map { try JSON.parse(Array($0.utf8)).objectValue ?? Object() }
        #expect(dead.map { $0["code"]?.stringValue } == ["column-type", "column-type", "null-key"])
        #expect(
            dead.first?["reason"]?.stringValue
                == "column kListingID of table 'listings' holds int: cannot convert 'id' (string \"one\") to int")
        #expect(
            dead.dropFirst().first?["reason"]?.stringValue
                == "column kListingName of table 'listings' cannot hold its value: PostgreSQL text cannot hold the NUL character "
                + "(\\u0000); remove it in the reformer")
        #expect(dead.first?["stage"]?.stringValue == "table ${PG_URL}#listings")
    }

    @Test func aTableWithOtherColumnsIsAnErrorNamingBothAndIsLeftUntouched() async throws {
        let database = try PostgresServer.database()
        let db = try database.client()
        try db.execute("CREATE TABLE listings (id integer PRIMARY KEY, title text); INSERT INTO listings VALUES (7, 'kept')")
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        await #expect {
            try await Self.run(harness, database, rent: [Self.record(1, "loft")])
        } throws: { error in
            (error as? RunError)?.message
                == "\(database.url): table 'listings' has the columns (id integer, title text), but the pipeline's are "
                + "(kListingID bigint, kListingName text, kListingPrice double precision, kListingTags jsonb, kListingOpen boolean); "
                + "schema: freeze (the default) never changes a table: let the run add the new columns (schema: evolve), "
                + "load another table (table: NAME), or rename or drop this one "
                + "(DROP TABLE \"listings\") and the run creates it"
        }
        #expect(try db.rows("SELECT * FROM listings") == ["7|kept"])
    }

    @Test func upsertIntoATableWithoutAUniqueIndexOnTheKeyIsAnError() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("table: listings, mode: append, types: { id: int, tags: json }"))
        try await Self.run(harness, database, rent: [Self.record(1, "loft")])
        try harness.write("p.yaml", Self.pipeline(Self.upsert))
        await #expect {
            try await Self.run(harness, database, rent: [Self.record(1, "loft")])
        } throws: { error in
            (error as? RunError)?.message.hasPrefix(
                "\(database.url): table 'listings' has no unique index on (kListingID), which mode: upsert matches rows on; "
                    + "reform never alters a table: add one (CREATE UNIQUE INDEX \"listings_key\" ON \"listings\" (\"kListingID\"))")
                == true
        }
    }

    @Test func aRunThatFailsLeavesTheTableAsItWas() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("table: listings, types: { id: int }"))
        try await Self.run(harness, database, rent: [Self.record(1, "loft"), Self.record(2, "studio")])
        try harness.write("rent.ndjson", Self.record(3, "house") + "\n")
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson")), ("sale", harness.path("missing.ndjson"))]
        options.environment = ["PG_URL": database.url]
        await #expect(throws: RunError.self) { try await harness.run("p.yaml", options: options) }
        #expect(try database.client().rows(#"SELECT "kListingID", "kListingName" FROM listings"#) == ["1|loft", "2|studio"])
    }

    @Test func tablesOfOneDatabaseLoadInTurnsAndCommitTogether() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write(
            "p.yaml",
            Self.pipeline(
                """
                table: a, types: { id: int } }
                      - { reform: [listing], postgres: "${PG_URL}", table: b, mode: upsert, key: [id]
                """))
        let many = (1...3000).map { Self.record($0, String(repeating: "listing \($0) ", count: 200)) }
        let summary = try await Self.run(harness, database, rent: many, sale: [Self.record(1, "again")])
        #expect(summary.written.map(\.count) == [3001, 3001])
        let db = try database.client()
        #expect(try db.rows("SELECT count(*) FROM a") == ["3001"])
        #expect(try db.rows("SELECT count(*) FROM b") == ["3000"])
        #expect(try db.rows(#"SELECT "kListingName" FROM b WHERE "kListingID" = '1'"#) == ["again"])
    }

    @Test func theFastPathAndParallelWorkersLoadWhatTheGeneralPathLoads() async throws {
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
                  - { reform: [listing], postgres: "${PG_URL}", table: l, mode: upsert, key: [id], types: { id: int, open: bool, when: date } }
            """
        let lines = [
            #"{"id": 1, "name": "plain", "price": 12, "open": true, "extra": "x", "when": "2024-05-01"}"#,
            #"{"id": 2, "name": "esc \"q\" \u4e0a\n\t\\", "price": 1.5, "open": false, "extra": [1, {"a": null}], "when": 1714521600}"#,
            #"{"id": 3, "name": "上海 浦东", "price": -7, "open": null, "extra": 123456789012345678, "when": null}"#,
            #"{"id": "4", "name": null, "price": "2.25", "open": "yes", "extra": true, "when": "2024-05-01T10:00:00Z"}"#,
            #"{"id": 5, "name": "no price", "open": true, "extra": 1, "when": null}"#,
            #"{"id": null, "name": "null key", "price": 1, "open": true, "extra": 1, "when": null}"#,
            #"{"id": "six", "name": "bad key", "price": 1, "open": true, "extra": 1, "when": null}"#,
            #"{"id": 7, "name": "nul \u0000", "price": 1, "open": 1, "extra": 1, "when": null}"#,
            #"{"id": 1, "name": "plain, again", "price": 13, "open": false, "extra": "y", "when": "2024-05-02"}"#,
        ]
        var tables: [[String]] = []
        var deadLetters: [[String]] = []
        for (direct, jobs) in [(true, 1), (false, 1), (true, 2)] {
            let database = try PostgresServer.database()
            let harness = try RunHarness()
            try harness.write("p.yaml", yaml)
            try harness.write("rent.ndjson", lines.map { $0 + "\n" }.joined())
            var options = RunOptions()
            options.inputs = [("rent", harness.path("rent.ndjson"))]
            options.environment = ["PG_URL": database.url]
            options.directWrites = direct
            options.jobs = jobs
            options.batchSize = 300
            let summary = try await harness.run("p.yaml", options: options)
            #expect(direct && jobs == 1 ? summary.writtenDirectly > 0 : summary.writtenDirectly == 0)
            tables.append(try database.client().rows(#"SET TIME ZONE 'UTC'; SELECT * FROM l ORDER BY "kID""#))
            deadLetters.append(try harness.lines("reform-dead-letter.ndjson").map { $0.replacing(harness.folder, with: "") })
        }
        #expect(tables[0] == tables[1] && tables[0] == tables[2])
        #expect(deadLetters[0] == deadLetters[1] && deadLetters[0] == deadLetters[2])
        #expect(
            tables[0] == [
                "1|plain, again|13|f|y|2024-05-02 00:00:00+00",
                "2|esc \"q\" 上\n\t\\|1.5|f|[1,{\"a\":null}]|2024-05-01 00:00:00+00",
                "3|上海 浦东|-7|NULL|123456789012345678|NULL",
                "4|NULL|2.25|t|true|2024-05-01 10:00:00+00",
            ])
        #expect(deadLetters[0].count == 4, "no price, a null key, a key that is no int, a NUL in text")
    }

    @Test func thePasswordIsNeverPrinted() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("table: listings"))
        let secret = "s3cr3t-Pa55"
        let wrong = database.url(password: secret).replacing("/reform_test_", with: "/no_such_")
        await #expect {
            try await Self.run(harness, database, rent: [Self.record(1, "loft")], url: wrong)
        } throws: { error in
            let message = (error as? RunError)?.message ?? ""
            return !message.contains(secret) && message.contains("postgres:***@") && message.contains("does not exist")
        }
        // A run that works names the table without the password too.
        let summary = try await Self.run(harness, database, rent: [Self.record(1, "loft")], url: database.url(password: secret))
        #expect(summary.written.map(\.output).allSatisfy { !$0.contains(secret) && $0.contains("postgres:***@") })
    }

    @Test func readingTheTableTheRunLoadsIsRefused() async throws {
        let database = try PostgresServer.database()
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("table: listings"))
        try await Self.run(harness, database, rent: [Self.record(1, "loft")])
        var options = RunOptions()
        options.inputs = [("rent", database.url + "#listings")]
        options.environment = ["PG_URL": database.url]
        await #expect {
            try await harness.run("p.yaml", options: options)
        } throws: { error in
            (error as? RunError)?.message
                == "the input \(database.url)#listings of manager 'rent' is table 'listings', which output 1 of run 'default' loads; "
                + "a run cannot read the table it is loading: load another table, or copy it first"
        }
    }

    @Test func anUnsetVariableInTheURLIsAnErrorBeforeAnythingIsLoaded() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline("table: listings"))
        try harness.write("rent.ndjson", Self.record(1, "loft") + "\n")
        var options = RunOptions()
        options.inputs = [("rent", harness.path("rent.ndjson"))]
        await #expect {
            try await harness.run("p.yaml", options: options)
        } throws: { error in
            (error as? RunError)?.message
                == "${PG_URL}: cannot connect to table 'listings': environment variable 'PG_URL' is not set; export it before the run "
                + "(it holds a secret, which belongs in the environment, not in the pipeline file)"
        }
    }

    @Test func postgresOutputsAreCheckedWhenThePipelineLoads() throws {
        let yaml = """
            reform: 1
            managers: { rent: {} }
            reformers:
              listing: { keys: { id: kID, price: kPrice }, map: { id: id, price: { path: price, convert: double } } }
            runs:
              default:
                outputs:
                  - { reform: [listing], postgres: "${PG_URL}", table: pg_x, types: { price: int } }
                  - { reform: [listing], postgres: "${PG_URL}", sqlite: out/l.db, table: t }
                  - { reform: [listing], postgres: "", table: t, mode: upsert }
            """
        let found = try SQLiteOutputTests.diagnostics(yaml)
        #expect(
            found == [
                "p.yaml:8:60: error: 'table' of run 'default' must be a table name, and names starting with sqlite_, pg_ or _reform_ "
                    + "belong to SQLite, PostgreSQL and Reform; give one such as listings",
                "p.yaml:8:82: error: 'price' is declared int in 'types' of run 'default', but reformer 'listing' (for manager 'rent') "
                    + "makes it double; declare it double, or convert it in the reformer (convert: int)",
                "p.yaml:9:30: error: an output of run 'default' has both 'sqlite' and 'postgres'; an output loads one table: "
                    + "declare two outputs",
                "p.yaml:10:40: error: 'postgres' of run 'default' must be the server's URL, as in "
                    + "postgres: postgres://reform:${PGPASSWORD}@localhost/reform",
                "p.yaml:10:60: error: the postgres output of run 'default' has mode: upsert, which needs 'key': the keys that "
                    + "identify a row, as in key: [id]",
            ])
    }
}
