package import ReformSDK

/// Reads a table's rows back as records: one object per row, its columns in table order.
///
/// SQLite values come back as the table output wrote them: INTEGER and REAL as numbers, TEXT as
/// strings, a `BOOLEAN` column's 0/1 as false/true, a `JSON` column's text parsed, NULL as null,
/// and a BLOB as its Base64 text; rows in the table's order (rowid order for most tables).
/// PostgreSQL values come back by their column's type (``PostgresTableRows``).
package final class TableReader {
    /// The address read, for messages.
    package let address: TableAddress
    /// The table read (the one in the address, or the database's only table).
    package var table: String { rows.table }
    /// The column names in order.
    package var columns: [String] { rows.columns }
    /// Rows read so far.
    package private(set) var count = 0
    private let rows: any TableRows

    /// Opens `address` read-only; throws an ``InputError`` saying what is missing (the database,
    /// or the table, with the tables there are).
    package init(_ address: TableAddress) throws(InputError) {
        self.address = address
        switch address.engine {
        case .sqlite: rows = try SQLiteTableRows(address)
        case .postgres: rows = try PostgresTableRows(address)
        }
    }

    /// The tables of the SQLite database file at `path`, in the order they were made, Reform's
    /// own (`_reform_state`, `_reform_loads`, `_reform_schema_log`) left out: a table output's
    /// table and its child tables.
    package static func sqliteTables(at path: String) throws(InputError) -> [String] {
        do throws(SQLiteError) {
            return try SQLiteTableRows.tables(on: try SQLiteConnection(path: path, create: false))
        } catch {
            throw InputError(path: path, message: error.message)
        }
    }

    /// The next row as a record; `nil` after the last.
    package func next() throws(InputError) -> Value? {
        guard let record = try rows.next() else { return nil }
        count += 1
        return record
    }
}

extension TableReader {
    /// The table `address` names among `tables` (in any case), or the only one when it names
    /// none; else what is wrong, with the tables there are (`database` names the database).
    static func choose(_ address: TableAddress, among tables: [String], in database: String) -> Result<String, TableChoiceError> {
        if let wanted = address.table {
            if let found = tables.first(where: { $0 == wanted }) ?? tables.first(where: { $0.lowercased() == wanted.lowercased() }) {
                return .success(found)
            }
            return .failure(
                TableChoiceError(
                    message: "no table '\(wanted)' in \(database)" + Suggestions.hint(for: wanted, in: tables)
                        + " (its tables: \(tables.isEmpty ? "none" : tables.joined(separator: ", ")))"))
        }
        guard tables.count == 1 else {
            let named = TableAddress("\(address.description)#\(tables.first ?? "TABLE")")?.description ?? ""
            return .failure(
                TableChoiceError(
                    message: "\(database) holds \(tables.isEmpty ? "no tables" : "the tables \(tables.joined(separator: ", "))"); "
                        + "name the one to read: \(named)"))
        }
        return .success(tables[0])
    }
}

/// No table, or several, where a table address needs one.
struct TableChoiceError: Error {
    /// What is wrong, with the tables there are.
    let message: String
}

/// The rows of one table of one database, read in order.
protocol TableRows: AnyObject {
    /// The table read.
    var table: String { get }
    /// Its column names in order.
    var columns: [String] { get }
    /// The next row as a record; `nil` after the last.
    func next() throws(InputError) -> Value?
}
