import CSQLite

/// A prepared statement: bind parameters (1-based), step, reset, read columns (0-based).
///
/// Text is bound without copying (`SQLITE_STATIC`) from memory the caller keeps alive until the
/// statement is stepped: the loader binds every text of a row from one buffer.
final class SQLiteStatement {
    /// What a step did.
    enum Step {
        /// A row is ready to be read.
        case row
        /// The statement has run to its end.
        case done
    }

    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds SQL NULL.
    @inline(__always)
    func bindNull(_ index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    /// Binds a 64-bit integer.
    @inline(__always)
    func bind(_ index: Int32, _ value: Int) {
        sqlite3_bind_int64(handle, index, sqlite3_int64(value))
    }

    /// Binds a double.
    @inline(__always)
    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(handle, index, value)
    }

    /// Binds UTF-8 text that stays where it is until the statement is stepped.
    @inline(__always)
    func bindText(_ index: Int32, _ bytes: UnsafePointer<CChar>, count: Int) {
        // SQLITE_STATIC is a null destructor: SQLite reads the caller's bytes in place.
        sqlite3_bind_text64(handle, index, bytes, sqlite3_uint64(count), nil, UInt8(SQLITE_UTF8))
    }

    /// Binds UTF-8 text, copied by SQLite.
    func bindText(_ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text64(
                    handle, index, chars.baseAddress, sqlite3_uint64(chars.count), SQLiteStatement.transient, UInt8(SQLITE_UTF8))
            }
        }
    }

    /// Runs the statement to its next row or its end.
    @discardableResult
    func step(doing what: @autoclosure () -> String) throws(SQLiteError) -> Step {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return .row
        case SQLITE_DONE: return .done
        default:
            let error = SQLiteError(code: connection.lastCode, message: "\(what()): \(connection.lastMessage)")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Makes the statement ready to run again (bindings are kept until rebound).
    @inline(__always)
    func reset() {
        sqlite3_reset(handle)
    }

    /// The number of columns of a row.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Column `index`'s name.
    func columnName(_ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// Column `index`'s declared type (`INTEGER`, `JSON`), upper case; empty when none.
    func declaredType(_ index: Int32) -> String {
        sqlite3_column_decltype(handle, index).map { String(cString: $0).uppercased() } ?? ""
    }

    /// The storage class of column `index` in the current row: one of ``null``, ``integer``,
    /// ``float``, ``text``, ``blob``.
    func storageClass(_ index: Int32) -> Int32 { sqlite3_column_type(handle, index) }

    /// Storage classes (`SQLITE_NULL`, …).
    static let null = SQLITE_NULL
    static let integer = SQLITE_INTEGER
    static let float = SQLITE_FLOAT
    static let text = SQLITE_TEXT
    static let blob = SQLITE_BLOB

    /// Column `index` as an integer.
    func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }

    /// Column `index` as a double.
    func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Column `index` as text (UTF-8; invalid bytes repaired).
    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` as raw bytes (a BLOB).
    func blob(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
