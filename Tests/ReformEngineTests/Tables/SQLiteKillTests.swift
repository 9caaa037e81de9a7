import Foundation
import ReformTestSupport
import Testing

/// A `reform run` killed (SIGKILL) while it loads an SQLite table, after `schema: evolve` added a
/// column and rows reached the database file, leaves the table as it was: the next connection
/// rolls the run's journal back, the column, its schema log row and the child table included.
@Suite(.timeLimit(.minutes(10))) struct SQLiteKillTests {
    static let yaml = """
        reform: 1
        managers: { a: {}, b: {} }
        reformers:
          list:
            keys: { id: kID, name: kName, area: kArea, tags: kTags }
            from: { a: { id: id, name: name, area: "area?", tags: "tags?" }, b: { id: id, name: name, area: "area?", tags: "tags?" } }
        runs:
          default:
            outputs:
              - { reform: [list], sqlite: out/l.db, table: listings, mode: upsert, key: [id], types: { id: int }, schema: evolve,
                  child_tables: [tags] }
        """

    @Test func aRunKilledDuringAnEvolvingLoadLeavesTheTableAsItWas() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path + "/out", withIntermediateDirectories: true)
        let db = try SQLiteFile(folder.path + "/out/l.db")
        try db.execute(#"CREATE TABLE listings ("kID" INTEGER UNIQUE, "kName" TEXT); INSERT INTO listings VALUES (1, 'kept')"#)
        let pipeline = try folder.write("p.yaml", Self.yaml)
        // About 6 MB of rows from a, past SQLite's page cache: pages reach the file before the
        // run waits on b.
        let name = String(repeating: "x", count: 300)
        try folder.write(
            "a.ndjson", (2...20_001).map { #"{"id": \#($0), "name": "\#(name)", "area": 1.5, "tags": ["t\#($0)"]}"# + "\n" }.joined())
        // Manager b reads a FIFO nobody writes to: the run has loaded a's rows and waits there.
        let fifo = folder.path + "/b.ndjson"
        try #require(mkfifo(fifo, 0o600) == 0)
        let errors = open(folder.path + "/stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(errors) }
        let command =
            "cd '\(folder.path)' && exec '\(ReformBinary.path)' run '\(pipeline)' --input a='\(folder.path)/a.ndjson' --input b='\(fifo)'"
        let pid = try Spawn.start(["/bin/sh", "-c", command], stdout: errors, stderr: errors, environment: ["PATH=/usr/bin:/bin"])
        // The rows reach the database file when they pass SQLite's page cache: the file grows
        // (new pages are not journaled; a rollback cuts them off), once the journal holds the
        // pages the run changed (the schema's, for the added column).
        let database = folder.path + "/out/l.db"
        var size = 0
        for _ in 0..<1000 where size < 1 << 20 {
            size = (try? FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0
            if size < 1 << 20 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(size >= 1 << 20, "the run wrote pages: \((try? folder.read("stderr.txt")) ?? "")")
        #expect(FileManager.default.fileExists(atPath: database + "-journal"))
        kill(pid, SIGKILL)
        #expect(try await Spawn.exitStatus(of: pid) == 128 + SIGKILL)
        let after = try SQLiteFile(folder.path + "/out/l.db")
        #expect(try after.rows("SELECT name FROM pragma_table_info('listings')") == ["'kID'", "'kName'"])
        #expect(try after.rows("SELECT * FROM listings") == ["1|'kept'"])
        #expect(
            try after.rows("SELECT count(*) FROM sqlite_master WHERE name IN ('_reform_schema_log', '_reform_loads', 'listings__tags')")
                == ["0"])
        #expect(try after.rows("PRAGMA integrity_check") == ["'ok'"])
    }
}
