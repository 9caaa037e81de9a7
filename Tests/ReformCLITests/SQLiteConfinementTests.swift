import Foundation
import ReformTestSupport
import Testing

/// `sqlite:` outputs are confined to the working folder like file outputs: no SQLite URI
/// filename, no in-memory database, no symbolic link leading out (reliability audit H4, L14).
@Suite("SQLite confinement", .timeLimit(.minutes(10)))
struct SQLiteConfinementTests {
    /// A pipeline whose one output loads table `items` of `database` with `mode: replace`.
    static func pipeline(_ database: String) -> String {
        """
        reform: 1
        name: uri
        managers: { m: {} }
        reformers:
          r: { keys: { id: kID, name: kName }, map: { id: id, name: name } }
        runs:
          default:
            outputs:
              - { reform: [r], sqlite: "\(database)", table: items, mode: replace, types: { id: int } }
        """
    }

    /// A folder with `victim/app.db` (table `items`, one row `precious`) and an empty `work/`
    /// holding `in.ndjson` (one record `OLD`); returns the folder.
    func victimAndWork() async throws -> String {
        let folder = Scratch.path("sqlite-confinement")
        for sub in ["victim", "work"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
        }
        try Self.pipeline("app.db").write(toFile: folder + "/victim/p.yaml", atomically: true, encoding: .utf8)
        let loaded = try await ReformProcess.run(
            ["run", "p.yaml", "--input", "m=-", "--quiet"], stdin: #"{"id": 7, "name": "precious"}"# + "\n", in: folder + "/victim")
        #expect(loaded.status == 0, "\(loaded.stderr)")
        try #"{"id": 1, "name": "OLD"}"#.appending("\n").write(toFile: folder + "/work/in.ndjson", atomically: true, encoding: .utf8)
        return folder
    }

    /// The names in the victim's table `items`.
    func victimRows(_ folder: String) async throws -> String {
        try await ReformProcess.run(["cat", "--to", "ndjson", "sqlite:victim/app.db#items"], in: folder).stdout
    }

    @Test(arguments: [
        ("file:${VICTIM}", "an SQLite URI filename (file:…), which SQLite would open as a URI rather than as a path"),
        ("file:../uri-escape.db", "an SQLite URI filename (file:…), which SQLite would open as a URI rather than as a path"),
        (":memory:", "SQLite's in-memory database, whose rows would be gone when the run ends"),
        ("file:x.db?mode=memory", "an SQLite URI filename (file:…), which SQLite would open as a URI rather than as a path"),
    ])
    func anSQLiteURIOrInMemoryNameIsRefusedAtItsLine(database: String, problem: String) async throws {
        let folder = try await victimAndWork()
        try Self.pipeline(database).write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let victim = folder + "/victim/app.db"
        let shown = database.replacingOccurrences(of: "${VICTIM}", with: victim)
        for command in [["validate", "../p.yaml"], ["run", "../p.yaml", "--input", "m=in.ndjson"]] {
            let result = try await ReformProcess.run(command, environment: ["VICTIM": victim], in: folder + "/work")
            #expect(result.status != 0, "\(command)")
            #expect(
                result.stderr.contains(
                    "../p.yaml:9:32: error: 'sqlite' of run 'default' is '\(shown)', \(problem); give the database file's path, "
                        + "as in sqlite: out/listings.db"),
                "\(result.stderr)")
        }
        #expect(try await victimRows(folder) == #"{"kID":7,"kName":"precious"}"# + "\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/work") == ["in.ndjson"], "no file: folder tree left")
        #expect(!FileManager.default.fileExists(atPath: folder + "/uri-escape.db"))
    }

    @Test(arguments: ["linked/app.db", "app.db", "dangling.db"])
    func aSymbolicLinkLeadingOutOfTheWorkingFolderIsRefused(database: String) async throws {
        let folder = try await victimAndWork()
        let work = folder + "/work"
        try FileManager.default.createSymbolicLink(atPath: work + "/linked", withDestinationPath: folder + "/victim")
        try FileManager.default.createSymbolicLink(atPath: work + "/app.db", withDestinationPath: folder + "/victim/app.db")
        try FileManager.default.createSymbolicLink(atPath: work + "/dangling.db", withDestinationPath: "../victim/new.db")
        try Self.pipeline(database).write(toFile: work + "/p.yaml", atomically: true, encoding: .utf8)
        let result = try await ReformProcess.run(["run", "p.yaml", "--input", "m=in.ndjson"], in: work)
        #expect(result.status != 0)
        let target =
            URL(fileURLWithPath: folder).resolvingSymlinksInPath().path + (database == "dangling.db" ? "/victim/new.db" : "/victim/app.db")
        #expect(
            result.stderr.contains(
                "p.yaml:9:32: error: output path '\(database)' of run 'default' leads outside the working folder through a symbolic "
                    + "link (it resolves to \(target)); give a path inside it that no link leads out of, or pass "
                    + "--allow-outside-paths to allow it"),
            "\(result.stderr)")
        #expect(try await victimRows(folder) == #"{"kID":7,"kName":"precious"}"# + "\n")
        #expect(!FileManager.default.fileExists(atPath: folder + "/victim/new.db"))
        let allowed = try await ReformProcess.run(["validate", "--allow-outside-paths", "p.yaml"], in: work)
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    @Test func aFileOutputThroughASymbolicLinkOutIsRefusedToo() async throws {
        let folder = try await victimAndWork()
        let work = folder + "/work"
        try FileManager.default.createSymbolicLink(atPath: work + "/linked", withDestinationPath: folder + "/victim")
        let yaml = "reform: 1\nmanagers: { m: {} }\nruns:\n  default: { output: { format: ndjson, path: linked/out.ndjson } }\n"
        try yaml.write(toFile: work + "/p.yaml", atomically: true, encoding: .utf8)
        let result = try await ReformProcess.run(["validate", "p.yaml"], in: work)
        #expect(result.status != 0)
        #expect(
            result.stderr.contains(
                "p.yaml:4:46: error: output path 'linked/out.ndjson' of run 'default' leads outside the working folder through a symbolic link"
            ), "\(result.stderr)")
    }

    @Test(arguments: ["file:../victim/app.db", ":memory:", "file:app.db?mode=memory"])
    func anSQLiteInputIsAFilePathNeverAURI(database: String) async throws {
        let folder = try await victimAndWork()
        for command in [["cat", "sqlite:\(database)#items"], ["run", "../victim/p.yaml", "--input", "m=sqlite:\(database)#items"]] {
            let result = try await ReformProcess.run(command, in: folder + "/work")
            #expect(result.status != 0, "\(command)")
            #expect(result.stderr.contains("'\(database)' is "), "\(result.stderr)")
            #expect(result.stderr.contains("; give the database file's path, as in sqlite:data/shop.db"), "\(result.stderr)")
        }
    }
}
