import Foundation
import ReformTestSupport
import Testing

/// A PostgreSQL password is `***` in every message, log format and `--stats`, in every form a
/// connection string can hold it: a quoted keyword value, a URL password holding `@`, `/`, `#`,
/// `:` or `?` (as `${PGPASSWORD}` gives it, or written out) (reliability audit M4). Nothing
/// listens on port 1, so each connection fails at once and its error names the server.
@Suite("PostgreSQL password redaction", .timeLimit(.minutes(10)))
struct PostgresRedactionTests {
    /// A connection string and the pieces of its password, none of which may be printed.
    struct Form: Sendable, CustomStringConvertible {
        let dsn: String
        let environment: [String: String]
        let pieces: [String]
        let description: String
    }

    static let forms = [
        Form(
            dsn: "host=127.0.0.1 port=1 dbname=shop user=reform password='KwQ7 Zz9'", environment: [:], pieces: ["KwQ7", "Zz9"],
            description: "a quoted keyword value"),
        Form(
            dsn: #"host=127.0.0.1 port=1 password = 'It\'sQ7 Zz9' dbname=shop"#, environment: [:], pieces: ["sQ7", "Zz9"],
            description: "a quoted keyword value with an escaped quote, spaces around ="),
        Form(
            dsn: "postgres://reform:${PGPASSWORD}@127.0.0.1:1/shop", environment: ["PGPASSWORD": "Qx7@Vb9/Zk3#Wm5"],
            pieces: ["Qx7", "Vb9", "Zk3", "Wm5"], description: "a URL password from ${PGPASSWORD} holding @ / #"),
        Form(
            dsn: "postgres://reform:Pq4r#Tp8@Ss6:Wx2/Rd5@127.0.0.1:1/shop", environment: [:],
            pieces: ["Pq4r", "Tp8", "Ss6", "Wx2", "Rd5"], description: "a URL password written out holding # @ : /"),
        Form(
            dsn: "postgres://reform:Gh4?Jk7@127.0.0.1:1/shop?sslmode=disable", environment: [:], pieces: ["Gh4", "Jk7"],
            description: "a URL password holding ?"),
    ]

    /// A folder with `out.yaml` (loading table `items` of `${PGURL}`), `in.yaml` (records to
    /// standard output) and `in.ndjson`.
    func folder() throws -> String {
        let folder = Scratch.path("pg-redaction")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let out = """
            reform: 1
            managers: { m: {} }
            reformers:
              r: { keys: { id: kID }, map: { id: id } }
            runs:
              default:
                outputs: [ { reform: [r], postgres: "${PGURL}", table: items, types: { id: int } } ]
            """
        try out.write(toFile: folder + "/out.yaml", atomically: true, encoding: .utf8)
        try "reform: 1\nmanagers: { m: {} }\n".write(toFile: folder + "/in.yaml", atomically: true, encoding: .utf8)
        try #"{"id": 1}"#.appending("\n").write(toFile: folder + "/in.ndjson", atomically: true, encoding: .utf8)
        return folder
    }

    @Test(arguments: forms)
    func thePasswordIsHiddenWholeEverywhere(form: Form) async throws {
        let folder = try folder()
        var address = form.dsn
        for (name, value) in form.environment { address = address.replacing("${\(name)}", with: value) }
        let table = (address.contains("://") ? "" : "postgres:") + address + "#items"
        let commands: [[String]] = [
            ["run", "out.yaml", "--input", "m=in.ndjson"],
            ["run", "out.yaml", "--input", "m=in.ndjson", "-vv"],
            ["run", "out.yaml", "--input", "m=in.ndjson", "--log-format", "json"],
            ["run", "out.yaml", "--input", "m=in.ndjson", "--stats", "json"],
            ["cat", table],
            ["run", "in.yaml", "--input", "m=" + table],
        ]
        for command in commands {
            let result = try await ReformProcess.run(command, environment: form.environment.merging(["PGURL": form.dsn]) { $1 }, in: folder)
            #expect(result.status != 0, "\(command)")
            let printed = result.stdout + result.stderr
            #expect(printed.contains("***"), "\(command): \(printed)")
            for piece in form.pieces {
                #expect(!printed.contains(piece), "\(form): '\(piece)' shown by \(command): \(printed)")
            }
        }
    }
}
