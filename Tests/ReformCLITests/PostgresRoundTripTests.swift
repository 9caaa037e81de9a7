import Foundation
import ReformTestSupport
import Testing

/// A table loaded by `reform run` into PostgreSQL reads back through `reform cat
/// postgres:URL#TABLE` and `reform run --input MANAGER=postgres:URL#TABLE` as the records that
/// went in; the URL's password is never printed.
@Suite(
    "PostgreSQL round trip", .timeLimit(.minutes(10)),
    .enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
struct PostgresRoundTripTests {
    static let pipeline = """
        reform: 1
        name: listings
        managers: { zufang: {}, stored: {} }
        reformers:
          listing:
            keys: { id: kListingID, name: kListingName, price: kListingPrice, tags: kListingTags, open: kListingOpen, seen: kListingSeen }
            from:
              zufang:
                id: id
                name: name
                price: { path: price, convert: double }
                tags: tags
                open: { path: open, convert: bool }
                seen: { path: seen, convert: date }
        runs:
          default:
            managers: [zufang]
            outputs:
              - { reform: [listing], postgres: "${PG_URL}", table: listings, mode: upsert, key: [id], types: { id: int, tags: json } }
          stored:
            managers: [stored]
            output: { format: ndjson }
        """

    static let input = """
        {"id": 1, "name": "loft", "price": "1200", "tags": ["a"], "open": "yes", "seen": "2024-05-01"}
        {"id": 2, "name": "studio \\"centre\\"", "price": 980.5, "tags": {"k": [1, null]}, "open": false, "seen": 1714557600}
        {"id": 1, "name": "loft, renovated", "price": 1500, "tags": [], "open": true, "seen": null}

        """

    func folder() throws -> String {
        let folder = Scratch.path("postgres")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        try Self.input.write(toFile: folder + "/z.ndjson", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func catAndInputReadBackWhatRunLoaded() async throws {
        let database = try PostgresServer.database()
        let folder = try folder()
        let environment = ["PG_URL": database.url]
        let loaded = try await ReformProcess.run(
            ["run", "p.yaml", "--input", "zufang=z.ndjson", "--quiet"], environment: environment, in: folder)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let expected = """
            {"kListingID":1,"kListingName":"loft, renovated","kListingPrice":1500,"kListingTags":[],"kListingOpen":true,"kListingSeen":null}
            {"kListingID":2,"kListingName":"studio \\"centre\\"","kListingPrice":980.5,"kListingTags":{"k":[1,null]},"kListingOpen":false,"kListingSeen":"2024-05-01T10:00:00Z"}

            """
        let cat = try await ReformProcess.run(["cat", "--to", "ndjson", database.url + "#listings"], in: folder)
        #expect(cat.status == 0, "\(cat.stderr)")
        #expect(cat.stdout == expected, "upserted on id: one row per listing")
        let prefixed = try await ReformProcess.run(["cat", "--to", "ndjson", "postgres:" + database.url], in: folder)
        #expect(prefixed.stdout == expected, "postgres:URL, and the database's only table")
        let again = try await ReformProcess.run(
            ["run", "p.yaml", "--run", "stored", "--input", "stored=\(database.url)#listings", "--quiet"], in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == expected)
    }

    @Test func catOfAMissingTableSaysWhichTablesThereAreWithoutThePassword() async throws {
        let database = try PostgresServer.database()
        let folder = try folder()
        let loaded = try await ReformProcess.run(
            ["run", "p.yaml", "--input", "zufang=z.ndjson", "--quiet"], environment: ["PG_URL": database.url], in: folder)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        let url = database.url(password: "hunter2-secret")
        let cat = try await ReformProcess.run(["cat", url + "#listing"], in: folder)
        #expect(cat.status != 0)
        let shown = url.replacing("hunter2-secret", with: "***")
        #expect(
            cat.stderr
                == "\(shown)#listing: error: no table 'listing' in \(shown); did you mean 'listings'? (its tables: listings)\n")
    }

    @Test func aKeywordConnectionStringHidesItsPasswordToo() async throws {
        let cat = try await ReformProcess.run(["cat", "postgres:host=/nonexistent-reform port=1 password=hunter2-secret dbname=x#t"])
        #expect(cat.status != 0)
        #expect(!cat.stderr.contains("hunter2-secret"), "\(cat.stderr)")
        #expect(cat.stderr.hasPrefix("postgres:host=/nonexistent-reform port=1 password=*** dbname=x#t: error: cannot connect to "))
    }

    @Test func statsAndDebugLogsNeverShowThePassword() async throws {
        let database = try PostgresServer.database()
        let folder = try folder()
        let url = database.url(password: "hunter2-secret")
        let run = try await ReformProcess.run(
            ["run", "p.yaml", "--input", "zufang=z.ndjson", "--stats", "json", "-vv"], environment: ["PG_URL": url], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!(run.stdout + run.stderr).contains("hunter2-secret"))
    }
}
