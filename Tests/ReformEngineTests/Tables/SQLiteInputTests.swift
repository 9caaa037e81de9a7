import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// `--input MANAGER=sqlite:PATH#TABLE`: a table's rows land as records, so what a run loaded
/// can be read back and reformed again.
@Suite(.timeLimit(.minutes(10))) struct SQLiteInputTests {
    static let records = [
        SQLiteOutputTests.record(1, "loft", tags: #"{"floor": 3, "views": ["river", "park"]}"#),
        SQLiteOutputTests.record(2, #"studio \"centre\" 上海"#, price: "980.5", tags: "[]", open: "false"),
        #"{"id": 3, "name": "no tags", "price": 1, "tags": null}"#,
    ]

    /// The same pipeline with a second run that reads `listings` back without any reformer.
    static let pipeline =
        SQLiteOutputTests.pipeline(SQLiteOutputTests.upsert + " }\n      - { reform: [listing], format: ndjson, path: out/listings.ndjson")
            + """

              again:
                managers: [rent]
                outputs:
                  - { format: ndjson, path: out/again.ndjson }
            """

    @Test func aTableReadBackGivesTheRecordsThatWereLoadedColumnsInOrder() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline)
        try await SQLiteOutputTests.run(harness, rent: Self.records)
        var options = RunOptions()
        options.runName = "again"
        options.inputs = [("rent", "sqlite:" + harness.path("out/listings.db#listings"))]
        let summary = try await harness.run("p.yaml", options: options)
        #expect(summary.recordsIn == 3)
        #expect(try harness.read("out/again.ndjson") == harness.read("out/listings.ndjson"))
        #expect(
            try harness.lines("out/again.ndjson").last
                == #"{"kListingID":3,"kListingName":"no tags","kListingPrice":1,"kListingTags":null,"kListingOpen":null}"#)
    }

    @Test func theOnlyTableOfADatabaseNeedsNoName() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline)
        try await SQLiteOutputTests.run(harness, rent: Self.records)
        var options = RunOptions()
        options.runName = "again"
        options.inputs = [("rent", "sqlite:" + harness.path("out/listings.db"))]
        let summary = try await harness.run("p.yaml", options: options)
        #expect(summary.recordsIn == 3)
    }

    @Test func aMissingTableOrDatabaseSaysWhatThereIs() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline)
        try await SQLiteOutputTests.run(harness, rent: Self.records)
        var options = RunOptions()
        options.runName = "again"
        options.inputs = [("rent", "sqlite:" + harness.path("out/listings.db#listing"))]
        await #expect {
            try await harness.run("p.yaml", options: options)
        } throws: { error in
            (error as? RunError)?.message.replacing(harness.folder + "/", with: "")
                == "manager 'rent': sqlite:out/listings.db#listing: no table 'listing' in out/listings.db; did you mean 'listings'? "
                + "(its tables: listings)"
        }
        options.inputs = [("rent", "sqlite:" + harness.path("out/nothing.db#listings"))]
        await #expect {
            try await harness.run("p.yaml", options: options)
        } throws: { error in
            (error as? RunError)?.message.replacing(harness.folder + "/", with: "")
                == "manager 'rent': sqlite:out/nothing.db#listings: no database file at out/nothing.db"
        }
        #expect(!harness.exists("out/nothing.db"), "reading never creates a database")
    }

    @Test func readingAndLoadingTheSameDatabaseInOneRunIsRefused() async throws {
        let harness = try RunHarness()
        try harness.write("p.yaml", Self.pipeline)
        try await SQLiteOutputTests.run(harness, rent: Self.records)
        var options = RunOptions()
        options.inputs = [("rent", "sqlite:" + harness.path("out/listings.db#listings"))]
        await #expect {
            try await harness.run("p.yaml", options: options)
        } throws: { error in
            (error as? RunError)?.code == .pathCollision
        }
    }
}
