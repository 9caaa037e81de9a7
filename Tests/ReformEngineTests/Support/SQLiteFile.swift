import CSQLite
import ReformEngineTesting

/// An SQLite database file opened straight through the C library, so that tests prepare tables
/// and read what a run loaded without going through the code under test.
final class SQLiteFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let handle: OpaquePointer

    init(_ path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
            throw Failure(description: "cannot open \(path)")
        }
        handle = db
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` (statements without results).
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw Failure(description: message.map { String(cString: $0) } ?? "error")
        }
    }

    /// The rows of `sql`, each value written with its storage class: `1`, `1.5`, `'text'`, `NULL`.
    func rows(_ sql: String) throws -> [String] {
        do { return try SQLiteRows.read(handle, sql) } catch { throw Failure(description: error.message) }
    }
}
