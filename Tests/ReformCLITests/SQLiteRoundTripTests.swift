import Foundation
import ReformTestSupport
import Testing

/// A table loaded by `reform run` reads back through `reform cat sqlite:PATH#TABLE` and
/// `reform run --input MANAGER=sqlite:PATH#TABLE` as the records that went in.
@Suite("SQLite round trip", .timeLimit(.minutes(10)))
struct SQLiteRoundTripTests {
    static let pipeline = """
        reform: 1
        name: listings
        managers: { zufang: {}, stored: {} }
        reformers:
          listing:
            keys: { id: kListingID, name: kListingName, price: kListingPrice }
            from: { zufang: { id: id, name: name, price: { path: price, convert: double } } }
        runs:
          default:
            managers: [zufang]
            outputs:
              - { reform: [listing], sqlite: out/listings.db, table: listings, mode: upsert, key: [id], types: { id: int } }
              - { reform: [listing], format: ndjson, path: out/listings.ndjson }
          stored:
            managers: [stored]
            output: { format: ndjson }
        """

    static let input = """
        {"id": 1, "name": "loft", "price": "1200"}
        {"id": 2, "name": "studio \\"centre\\"", "price": 980.5}
        {"id": 1, "name": "loft, renovated", "price": 1500}

        """

    func folder() throws -> String {
        let folder = Scratch.path("sqlite")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        try Self.input.write(toFile: folder + "/z.ndjson", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func catAndInputReadBackWhatRunLoaded() async throws {
        let folder = try folder()
        let loaded = try await ReformProcess.run(["run", "p.yaml", "--input", "zufang=z.ndjson", "--quiet"], in: folder)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let expected = """
            {"kListingID":1,"kListingName":"loft, renovated","kListingPrice":1500}
            {"kListingID":2,"kListingName":"studio \\"centre\\"","kListingPrice":980.5}

            """
        let cat = try await ReformProcess.run(["cat", "--to", "ndjson", "sqlite:out/listings.db#listings"], in: folder)
        #expect(cat.status == 0, "\(cat.stderr)")
        #expect(cat.stdout == expected, "upserted on id: one row per listing")
        let again = try await ReformProcess.run(
            ["run", "p.yaml", "--run", "stored", "--input", "stored=sqlite:out/listings.db#listings", "--quiet"], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == expected)
    }

    @Test func catOfAMissingTableSaysWhichTablesThereAre() async throws {
        let folder = try folder()
        _ = try await ReformProcess.run(["run", "p.yaml", "--input", "zufang=z.ndjson", "--quiet"], in: folder)
        let cat = try await ReformProcess.run(["cat", "sqlite:out/listings.db#listing"], in: folder)
        #expect(cat.status != 0)
        #expect(
            cat.stderr
                == "sqlite:out/listings.db#listing: error: no table 'listing' in out/listings.db; did you mean 'listings'? (its tables: listings)\n"
        )
    }
}
