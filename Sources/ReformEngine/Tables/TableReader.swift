package import ReformSDK

/// Reads a table's rows back as records: one object per row, its columns in table order.
///
/// Values come back as the table output wrote them: INTEGER and REAL as numbers, TEXT as
/// strings, a `BOOLEAN` column's 0/1 as false/true, a `JSON` column's text parsed, NULL as null,
/// and a BLOB as its Base64 text. Rows come in the table's order (rowid order for most tables).
package final class TableReader {
    /// The address read, for messages.
    package let address: TableAddress
    /// The table read (the one in the address, or the database's only table).
    package let table: String
    /// The column names in order.
    package let columns: [String]
    private let connection: SQLiteConnection
    private let rows: SQLiteStatement
    private let kinds: [Kind]
    /// Rows read so far.
    package private(set) var count = 0

    private enum Kind {
        case plain, bool, json
    }

    /// Opens `address` read-only; throws an ``InputError`` saying what is missing (the file, or
    /// the table, with the tables there are).
    package init(_ address: TableAddress) throws(InputError) {
        self.address = address
        let name = address.description
        guard FilePaths.isFile(address.database) else {
            throw InputError(path: name, message: "no database file at \(address.database)")
        }
        do throws(SQLiteError) {
            connection = try SQLiteConnection(path: address.database, create: false)
            let tables = try TableReader.tables(on: connection)
            if let wanted = address.table {
                guard let found = tables.first(where: { $0.lowercased() == wanted.lowercased() }) else {
                    throw SQLiteError(
                        code: 1,
                        message: "no table '\(wanted)' in \(address.database)" + Suggestions.hint(for: wanted, in: tables)
                            + " (its tables: \(tables.isEmpty ? "none" : tables.joined(separator: ", ")))")
                }
                table = found
            } else {
                guard tables.count == 1 else {
                    throw SQLiteError(
                        code: 1,
                        message:
                            "\(address.database) holds \(tables.isEmpty ? "no tables" : "the tables \(tables.joined(separator: ", "))"); "
                            + "name the one to read: \(TableAddress.scheme)\(address.database)#\(tables.first ?? "TABLE")")
                }
                table = tables[0]
            }
            rows = try connection.prepare("SELECT * FROM \(SQLiteConnection.quoted(table))", doing: "cannot read table '\(table)'")
        } catch {
            throw InputError(path: name, message: error.message)
        }
        let statement = rows
        columns = (0..<statement.columnCount).map { statement.columnName($0) }
        kinds = (0..<statement.columnCount).map { index in
            let declared = statement.declaredType(index)
            if declared.contains("BOOL") { return .bool }
            if declared.contains("JSON") { return .json }
            return .plain
        }
    }

    /// The next row as a record; `nil` after the last.
    package func next() throws(InputError) -> Value? {
        let step: SQLiteStatement.Step
        do { step = try rows.step(doing: "cannot read table '\(table)'") } catch {
            throw InputError(path: address.description, message: error.message)
        }
        guard step == .row else {
            rows.reset()  // lets go of the database's read lock
            return nil
        }
        count += 1
        var object = Object(minimumCapacity: columns.count)
        for (index, name) in columns.enumerated() {
            object.appendNew(key: name, value: value(at: Int32(index), kinds[index]))
        }
        return .object(object)
    }

    private func value(at index: Int32, _ kind: Kind) -> Value {
        switch rows.storageClass(index) {
        case SQLiteStatement.null: return .null
        case SQLiteStatement.integer:
            let i = rows.int(index)
            return kind == .bool ? .bool(i != 0) : .int(i)
        case SQLiteStatement.float: return .double(rows.double(index))
        case SQLiteStatement.text:
            let text = rows.text(index)
            guard kind == .json else { return .string(text) }
            return (try? JSON.parse(Array(text.utf8))) ?? .string(text)
        default: return .string(Base64.encode(rows.blob(index)))
        }
    }

    /// The database's tables, in the order they were made (SQLite's own left out).
    private static func tables(on connection: SQLiteConnection) throws(SQLiteError) -> [String] {
        let query = try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
            doing: "cannot read the database's tables")
        var names: [String] = []
        while try query.step(doing: "cannot read the database's tables") == .row { names.append(query.text(0)) }
        return names
    }
}
