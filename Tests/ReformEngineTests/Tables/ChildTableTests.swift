import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// `child_tables:` of an SQLite table output: each element of a list-valued key is a row of
/// TABLE__KEY, with the parent's key, its position and its fields as columns found from the
/// records; loaded in the run's transaction, settled by the output's contract, replaced per
/// parent by an upsert.
@Suite(.timeLimit(.minutes(10))) struct ChildTableTests {
    /// A pipeline landing `issues` (id, title, labels as landed, and the labels' names) into
    /// `issues` in out/gh.db with `settings`.
    static func pipeline(settings: String, database: String = "sqlite: out/gh.db", table: String = "issues") -> String {
        """
        reform: 1
        name: gh
        managers: { issues: {} }
        reformers:
          issue:
            keys: { id: kIssueKeyID, title: kIssueKeyTitle, labels: kIssueKeyLabels, names: kIssueKeyNames }
            map: { id: id, title: title, labels: "labels?", names: { path: "labels[].name", optional: true } }
        runs:
          default:
            outputs:
              - { reform: [issue], \(database), table: \(table), types: { id: int }, \(settings) }
        """
    }

    /// `pipeline` without the key `names` (the labels' names, which reads `labels` as a list).
    static func withoutNames(_ pipeline: String) -> String {
        pipeline.replacing(#", names: { path: "labels[].name", optional: true }"#, with: "").replacing(", names: kIssueKeyNames", with: "")
    }

    /// Runs p.yaml over `lines` (NDJSON records for `issues`), with `environment`.
    @discardableResult
    static func run(_ harness: RunHarness, _ lines: [String], environment: [String: String] = [:]) async throws -> RunSummary {
        try harness.write("issues.ndjson", lines.map { $0 + "\n" }.joined())
        var options = RunOptions()
        options.inputs = [("issues", harness.path("issues.ndjson"))]
        options.deadLetterPath = harness.path("dead.ndjson")
        options.environment = environment
        return try await harness.run("p.yaml", options: options)
    }

    static let firstRun = [
        #"{"id": 1, "title": "crash", "labels": [{"name": "bug", "color": "d73a4a", "id": 10}, {"name": "ui", "id": 11, "meta": {"a": 1}}]}"#,
        #"{"id": 2, "title": "docs", "labels": []}"#,
        #"{"id": 3, "title": "idea"}"#,
        #"{"id": 4, "title": "slow", "labels": [{"name": "perf", "color": "fbca04", "id": 12, "score": 1}, {"name": "bug", "score": 2.5}]}"#,
    ]

    @Test func eachElementOfAListIsARowOfTheChildTableWithTheParentKeyAndItsPosition() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "mode: replace, key: [id], child_tables: [labels, names]"))
        let summary = try await Self.run(harness, Self.firstRun)
        #expect(summary.rejected == 0)
        let db = try SQLiteFile(harness.path("out/gh.db"))
        #expect(
            try db.rows("SELECT name FROM pragma_table_info('issues')") == ["'kIssueKeyID'", "'kIssueKeyTitle'"],
            "the keys that go to child tables are not columns of the parent")
        #expect(try db.rows("SELECT * FROM issues ORDER BY 1") == ["1|'crash'", "2|'docs'", "3|'idea'", "4|'slow'"])
        #expect(
            try db.rows("SELECT name, type FROM pragma_table_info('issues__labels')") == [
                "'kIssueKeyID'|'INTEGER'", "'_position'|'INTEGER'", "'name'|'TEXT'", "'color'|'TEXT'", "'id'|'INTEGER'",
                "'meta'|'JSON'", "'score'|'REAL'",
            ])
        #expect(
            try db.rows("SELECT * FROM issues__labels ORDER BY 1, 2") == [
                "1|0|'bug'|'d73a4a'|10|NULL|NULL", "1|1|'ui'|NULL|11|'{\"a\":1}'|NULL", "4|0|'perf'|'fbca04'|12|NULL|1.0",
                "4|1|'bug'|NULL|NULL|NULL|2.5",
            ])
        #expect(
            try db.rows("SELECT name, type FROM pragma_table_info('issues__names')") == [
                "'kIssueKeyID'|'INTEGER'", "'_position'|'INTEGER'", "'value'|'TEXT'",
            ])
        #expect(
            try db.rows("SELECT * FROM issues__names ORDER BY 1, 2") == ["1|0|'bug'", "1|1|'ui'", "4|0|'perf'", "4|1|'bug'"])
        #expect(
            try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'issues__labels'") == [
                "'issues__labels_by_parent'"
            ], "an upsert deletes a parent's rows through this index")
        let gh = harness.path("out/gh.db")
        #expect(summary.childRows.map { "\($0.table) \($0.count)" } == ["\(gh)#issues__labels 4", "\(gh)#issues__names 4"])
        #expect(summary.description.hasSuffix("; 4 rows to child table \(gh)#issues__labels; 4 rows to child table \(gh)#issues__names"))
        #expect(
            try db.rows("SELECT table_name, mode, row_count FROM _reform_loads") == [
                "'issues'|'replace'|4", "'issues__labels'|'replace'|4", "'issues__names'|'replace'|4",
            ])
        // mode: replace empties the child tables with the parent.
        try await Self.run(harness, [#"{"id": 9, "title": "new", "labels": [{"name": "x"}]}"#])
        #expect(try db.rows("SELECT kIssueKeyID, name FROM issues__labels") == ["9|'x'"])
        #expect(try db.rows("SELECT count(*) FROM issues__names") == ["1"])
    }

    @Test func anUpsertReplacesTheRowsOfEachParentItLoadsAndTheLastRecordOfAKeyGivesThem() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "mode: upsert, key: [id], child_tables: [names]"))
        try await Self.run(harness, Self.firstRun)
        let summary = try await Self.run(
            harness,
            [
                #"{"id": "1", "title": "crash", "labels": [{"name": "wontfix"}]}"#,
                #"{"id": 4, "title": "slow", "labels": [{"name": "a"}, {"name": "b"}]}"#,
                #"{"id": 1, "title": "crash again", "labels": [{"name": "bug"}, {"name": "regression"}]}"#,
                #"{"id": 4, "title": "slow", "labels": []}"#,
                #"{"id": 5, "title": "new", "labels": [{"name": "good first issue"}]}"#,
            ])
        #expect(summary.childRows.map(\.count) == [3])
        let db = try SQLiteFile(harness.path("out/gh.db"))
        #expect(
            try db.rows("SELECT kIssueKeyID, kIssueKeyTitle FROM issues ORDER BY 1") == [
                "1|'crash again'", "2|'docs'", "3|'idea'", "4|'slow'", "5|'new'",
            ])
        #expect(
            try db.rows("SELECT * FROM issues__names ORDER BY 1, 2") == [
                "1|0|'bug'", "1|1|'regression'", "5|0|'good first issue'",
            ], "1's rows are its last record's, 4's list is empty now, 2 and 3 were not loaded and keep theirs (none)")
    }

    @Test func aChildKeyThatHoldsNoListSendsItsRecordToTheDeadLetterFileUnloaded() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.withoutNames(Self.pipeline(settings: "mode: append, key: [id], child_tables: [labels]")))
        let summary = try await Self.run(
            harness, [#"{"id": 1, "title": "a", "labels": {"name": "bug"}}"#, #"{"id": 2, "title": "b", "labels": [7, "x", null]}"#])
        #expect(summary.rejected == 1)
        #expect(
            try SQLiteContractTests.deadLetters(harness) == [
                "not-a-list: 'labels' goes to child table 'issues__labels', and holds object, not a list; make it a list in the "
                    + "reformer (a path with [] and array: list), or leave it out of child_tables"
            ])
        let db = try SQLiteFile(harness.path("out/gh.db"))
        #expect(try db.rows("SELECT kIssueKeyID FROM issues") == ["2"])
        #expect(
            try db.rows("SELECT * FROM issues__labels ORDER BY 2") == ["2|0|'7'", "2|1|'x'", "2|2|NULL"],
            "mixed scalars take any value as text")
    }

    @Test func freezeStopsAtANewFieldOfTheElementsAndTheWholeRunIsRolledBack() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "mode: upsert, key: [id], child_tables: [labels]"))
        try await Self.run(harness, Self.firstRun)
        // Fields the records lack this time are fine: they load as null.
        try await Self.run(harness, [#"{"id": 2, "title": "docs", "labels": [{"name": "docs"}]}"#])
        await #expect {
            try await Self.run(harness, [#"{"id": 6, "title": "new", "labels": [{"name": "bug", "description": "broken"}]}"#])
        } throws: { error in
            (error as? RunError)?.message.contains(
                "table 'issues__labels' has no column description (TEXT), which the run's records have; schema: freeze (the default) "
                    + "never changes a table: set schema: evolve to add new columns, or discard_value to load the rows without such values"
            ) == true
        }
        let db = try SQLiteFile(harness.path("out/gh.db"))
        #expect(try db.rows("SELECT count(*) FROM issues WHERE kIssueKeyID = 6") == ["0"], "the parent's rows were rolled back too")
        #expect(try db.rows("SELECT kIssueKeyID, name FROM issues__labels WHERE kIssueKeyID = 2") == ["2|'docs'"])
    }

    @Test func aRunWithNoElementsMakesNoChildTableSoALaterRunMakesItWithItsColumns() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "mode: upsert, key: [id], child_tables: [labels]"))
        let empty = try await Self.run(harness, [#"{"id": 1, "title": "a", "labels": []}"#, #"{"id": 2, "title": "b"}"#])
        #expect(empty.childRows.isEmpty)
        let db = try SQLiteFile(harness.path("out/gh.db"))
        #expect(try db.rows("SELECT count(*) FROM sqlite_master WHERE name = 'issues__labels'") == ["0"])
        try await Self.run(harness, [#"{"id": 1, "title": "a", "labels": [{"name": "bug"}]}"#])
        #expect(try db.rows("SELECT * FROM issues__labels") == ["1|0|'bug'"])
        await #expect(throws: RunError.self) {
            try await Self.run(harness, [#"{"id": 3, "title": "c", "labels": [{"": 1}]}"#])
        }
    }

    @Test func evolveAddsTheNewFieldsAndAValueTheTablesTypeCannotHoldIsADeadLetter() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "mode: upsert, key: [id], schema: evolve, child_tables: [labels]"))
        try await Self.run(harness, Self.firstRun)
        let summary = try await Self.run(
            harness,
            [
                #"{"id": 6, "title": "new", "labels": [{"name": "bug", "description": "broken", "id": "13"}]}"#,
                #"{"id": 7, "title": "odd", "labels": [{"name": "odd", "id": "thirteen"}, {"name": "fine", "id": 14}]}"#,
            ])
        let gh = harness.path("out/gh.db")
        #expect(summary.tableChanges == ["\(gh)#issues__labels: added column description (TEXT), schema: evolve"])
        #expect(summary.rejected == 1)
        #expect(
            try SQLiteContractTests.deadLetters(harness) == [
                #"column-type: column id of table 'issues__labels' holds int: cannot convert 'id' (string "thirteen") to int"#
            ])
        let db = try SQLiteFile(harness.path("out/gh.db"))
        #expect(
            try db.rows("SELECT kIssueKeyID, _position, name, id, description FROM issues__labels WHERE kIssueKeyID > 5 ORDER BY 1, 2")
                == ["6|0|'bug'|13|'broken'", "7|1|'fine'|14|NULL"], "the table's INTEGER column converts the text id")
        #expect(
            try db.rows("SELECT table_name, change, column_name, column_type FROM _reform_schema_log") == [
                "'issues__labels'|'add column'|'description'|'TEXT'"
            ])
        let dead = try harness.lines("dead.ndjson")
        #expect(dead.first?.contains(#""record":{"kIssueKeyID":7,"_position":0,"name":"odd","id":"thirteen"}"#) == true)
        #expect(dead.first?.contains(#""stage":"table out/gh.db#issues__labels""#) == true)
    }

    @Test func widenGivesAChildColumnTheWiderTypeItsNewValuesNeed() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "mode: upsert, key: [id], schema: evolve, widen: true, child_tables: [labels]"))
        try await Self.run(harness, Self.firstRun)
        let summary = try await Self.run(
            harness, [#"{"id": 7, "title": "odd", "labels": [{"name": "odd", "id": "thirteen", "score": 3}]}"#])
        let gh = harness.path("out/gh.db")
        #expect(summary.tableChanges == ["\(gh)#issues__labels: widened column id from INTEGER to TEXT, schema: evolve, widen: true"])
        #expect(summary.rejected == 0)
        let db = try SQLiteFile(harness.path("out/gh.db"))
        #expect(
            try db.rows("SELECT kIssueKeyID, id, typeof(id), score FROM issues__labels WHERE kIssueKeyID IN (1, 7) ORDER BY 1, _position")
                == ["1|'10'|'text'|NULL", "1|'11'|'text'|NULL", "7|'thirteen'|'text'|3.0"],
            "a REAL column holds the integer score as it is")
    }

    @Test func discardValueLeavesANewFieldOutAndCountsIt() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "mode: append, key: [id], schema: discard_value, child_tables: [labels]"))
        try await Self.run(harness, Self.firstRun)
        let summary = try await Self.run(harness, [#"{"id": 6, "title": "new", "labels": [{"name": "bug", "description": "broken"}]}"#])
        #expect(summary.rejected == 0)
        #expect(summary.discardedValues.map(\.count) == [1])
        let db = try SQLiteFile(harness.path("out/gh.db"))
        #expect(try db.rows("SELECT kIssueKeyID, name FROM issues__labels WHERE kIssueKeyID = 6") == ["6|'bug'"])
        #expect(try db.rows("SELECT count(*) FROM pragma_table_info('issues__labels') WHERE name = 'description'") == ["0"])
    }

    @Test func aFieldNamedLikeTheLeadingColumnsStopsTheRunSayingWhatToRename() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "mode: append, key: [id], child_tables: [labels]"))
        await #expect {
            try await Self.run(harness, [#"{"id": 1, "title": "a", "labels": [{"name": "x", "_Position": 3}]}"#])
        } throws: { error in
            (error as? RunError)?.message.contains(
                "the elements of 'labels' have the field '_Position', but child table 'issues__labels' already has the column "
                    + "'_position' (its parent key and position come first); rename the field in a reformer") == true
        }
        if harness.exists("out/gh.db") {
            #expect(try SQLiteFile(harness.path("out/gh.db")).rows("SELECT count(*) FROM sqlite_master WHERE name = 'issues'") == ["0"])
        }
    }

    @Test func trueTakesEveryKeyTypedJSON() throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline(settings: "key: [id], child_tables: true"))
        #expect(try harness.load("p.yaml").runs.first?.outputs.first?.table?.children.map(\.name) == ["issues__names"])
        try harness.write(
            "p.yaml", Self.pipeline(settings: "key: [id], child_tables: true").replacing("{ id: int }", with: "{ id: int, labels: json }"))
        #expect(try harness.load("p.yaml").runs.first?.outputs.first?.table?.children.map(\.name) == ["issues__labels", "issues__names"])
        let none = Self.withoutNames(Self.pipeline(settings: "key: [id], child_tables: true"))
        #expect(
            try loadDiagnostics(none).contains {
                $0.contains("'child_tables: true' of run 'default' takes every key typed json (a list), but none is")
            })
    }

    @Test(arguments: [
        (
            "mode: append, child_tables: [labels]",
            "'child_tables' of run 'default' needs 'key': the keys that identify a row of 'issues'"
        ),
        (
            "key: [id], child_tables: [lables]",
            "'child_tables' of run 'default' names 'lables', which is not one of the chain's keys; did you mean 'labels'?"
        ),
        ("key: [id], child_tables: [id]", "names 'id', but the chain makes it int, not a list"),
        ("mode: append, key: [id]", "'key' of run 'default' is for mode: upsert"),
    ])
    func childTablesAreCheckedWhenThePipelineLoads(settings: String, message: String) throws {
        let problems = try loadDiagnostics(Self.pipeline(settings: settings))
        #expect(problems.contains { $0.contains(message) }, "\(problems)")
    }
}
