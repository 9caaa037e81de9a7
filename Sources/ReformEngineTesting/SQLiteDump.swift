import CSQLite

/// The tables of an SQLite database file as text, read straight through the C library (not
/// through the engine under test): each table (by name) after a `== PATH: TABLE ==` line, its
/// rows in insertion order, each value with its storage class (`1`, `1.5`, `'text'`, `NULL`).
/// Reform's logs are dumped without their times (`loaded_at`, `changed_at`), which differ from
/// run to run; what they say of each load and change is compared.
enum SQLiteDump {
    static func text(of path: String, named name: String) -> String {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            return "== \(name): cannot open ==\n"
        }
        defer { sqlite3_close_v2(handle) }
        var out = ""
        let tables = rows(handle, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", quoting: false)
        for table in tables {
            out += "== \(name): \(table) ==\n"
            let quoted = "\"" + table.replacing("\"", with: "\"\"") + "\""
            var list = "*"
            if table.hasPrefix("_reform_") {  // Reform's names: no quote to escape
                let sql = "SELECT name FROM pragma_table_info('\(table)') WHERE name NOT IN ('loaded_at', 'changed_at')"
                list = rows(handle, sql, quoting: false).map { "\"\($0)\"" }.joined(separator: ", ")
            }
            for row in rows(handle, "SELECT \(list) FROM \(quoted) ORDER BY rowid", quoting: true) { out += row + "\n" }
        }
        return out
    }

    private static func rows(_ handle: OpaquePointer, _ sql: String, quoting: Bool) -> [String] {
        do { return try SQLiteRows.read(handle, sql, quotingText: quoting) } catch { return ["(cannot read: \(error.message))"] }
    }
}

/// The rows of one query, each value written with its storage class: `1`, `1.5`, `'text'` (or the
/// text alone), `NULL`, joined by `|`. Shared by ``SQLiteDump`` and the engine's tests.
package enum SQLiteRows {
    /// A statement SQLite refused, with its message.
    package struct Failure: Error, CustomStringConvertible {
        /// SQLite's message.
        package let message: String
        /// SQLite's message.
        package var description: String { message }
    }

    /// The rows `sql` gives on the open database `handle`.
    package static func read(_ handle: OpaquePointer, _ sql: String, quotingText: Bool = true) throws(Failure) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            var values: [String] = []
            for i in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, i) {
                case SQLITE_INTEGER: values.append(String(sqlite3_column_int64(statement, i)))
                case SQLITE_FLOAT: values.append(String(sqlite3_column_double(statement, i)))
                case SQLITE_NULL: values.append("NULL")
                default:
                    let text = sqlite3_column_text(statement, i).map { String(cString: $0) } ?? ""
                    values.append(quotingText ? "'" + text + "'" : text)
                }
            }
            rows.append(values.joined(separator: "|"))
        }
        return rows
    }
}
