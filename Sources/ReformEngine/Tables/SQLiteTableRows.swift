import ReformSDK

/// The rows of an SQLite table (``TableReader``).
final class SQLiteTableRows: TableRows {
    let address: TableAddress
    let table: String
    let columns: [String]
    private let connection: SQLiteConnection
    private let rows: SQLiteStatement
    private let kinds: [Kind]

    private enum Kind {
        case plain, bool, json
    }

    /// Opens `address` read-only; throws an ``InputError`` saying what is missing (the file, or
    /// the table, with the tables there are).
    init(_ address: TableAddress) throws(InputError) {
        self.address = address
        let name = address.description
        if let problem = SQLitePath.problem(address.database) {
            throw InputError(
                path: name, message: "'\(address.database)' is \(problem); give the database file's path, as in sqlite:data/shop.db")
        }
        guard FilePaths.isFile(address.database) else {
            throw InputError(path: name, message: "no database file at \(address.database)")
        }
        do throws(SQLiteError) {
            connection = try SQLiteConnection(path: address.database, create: false)
            let tables = try SQLiteTableRows.tables(on: connection)
            table = try TableReader.choose(address, among: tables, in: address.database).mapError {
                SQLiteError(code: 1, message: $0.message)
            }.get()
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

    func next() throws(InputError) -> Value? {
        let step: SQLiteStatement.Step
        do { step = try rows.step(doing: "cannot read table '\(table)'") } catch {
            throw InputError(path: address.description, message: error.message)
        }
        guard step == .row else {
            rows.reset()  // lets go of the database's read lock
            return nil
        }
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
    static func tables(on connection: SQLiteConnection) throws(SQLiteError) -> [String] {
        let query = try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_reform\\_%' ESCAPE '\\' ORDER BY rowid",
            doing: "cannot read the database's tables")
        var names: [String] = []
        while try query.step(doing: "cannot read the database's tables") == .row { names.append(query.text(0)) }
        return names
    }
}
