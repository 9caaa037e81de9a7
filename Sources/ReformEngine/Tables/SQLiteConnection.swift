import CSQLite

/// One open SQLite database: statements are prepared on it and run in its transactions.
///
/// A thin layer over the C API (the system `libsqlite3`): Reform needs prepared statements,
/// transactions and a few pragmas, nothing more. Not thread-safe: one run's thread uses it.
final class SQLiteConnection {
    /// The database file's path as the user gave it (for messages).
    let displayPath: String
    private let handle: OpaquePointer

    /// Opens the database file at `path`, always as a file (``SQLitePath/plain(_:)``: never as a
    /// URI or an in-memory database); `create` makes the file when it is missing (outputs), else
    /// a missing file is an error (inputs, opened read-only).
    init(path: String, displayPath: String? = nil, create: Bool) throws(SQLiteError) {
        self.displayPath = displayPath ?? path
        var db: OpaquePointer?
        let flags = (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(SQLitePath.plain(path), &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(
                code: status,
                message: create ? "cannot open or create the database: \(reason)" : "cannot open the database: \(reason)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // Another writer (a second run, a person with the sqlite3 shell) is waited for a while
        // before the run gives up with a clear error.
        sqlite3_busy_timeout(db, 10_000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` (one or more statements without results).
    func execute(_ sql: String, doing what: @autoclosure () -> String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard status == SQLITE_OK else {
            let reason = errorMessage.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(errorMessage)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: "\(what()): \(reason)")
        }
    }

    /// A statement compiled from `sql`.
    /// Whether the database has a table called `name` (exactly; a view is not one).
    func hasTable(_ name: String) throws(SQLiteError) -> Bool {
        let exists = try prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", doing: "cannot read the schema")
        exists.bindText(1, name)
        return try exists.step(doing: "cannot read the schema") == .row
    }

    func prepare(_ sql: String, doing what: @autoclosure () -> String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: "\(what()): \(lastMessage)")
        }
        return SQLiteStatement(statement, connection: self)
    }

    /// Whether the connection is inside a transaction.
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// SQLite's message for the last failure on this connection.
    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// SQLite's extended result code for the last failure on this connection.
    var lastCode: Int32 { sqlite3_extended_errcode(handle) }

    /// Quotes `name` as an SQL identifier (`"a ""b"""`): any table or column name is safe in SQL text.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }
}
