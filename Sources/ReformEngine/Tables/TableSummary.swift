public import ReformSDK

/// What a table holds and how it got there, for `reform show sqlite:PATH#TABLE` (or
/// `postgres://…#TABLE`): its columns with their declared types and how many nulls each has,
/// its row count, the loads Reform logged into it (`_reform_loads`) and the columns
/// `schema: evolve` added (`_reform_schema_log`).
public struct TableSummary: Sendable {
    /// One column: its name, its declared type, and how many rows hold null in it.
    public struct Column: Sendable {
        /// The column's name.
        public let name: String
        /// Its type as the database declares it.
        public let type: String
        /// Rows whose value is null.
        public let nulls: Int
    }

    /// One entry of a log: when, which pipeline (and run), and what.
    public struct Entry: Sendable {
        /// When (the database's clock, UTC).
        public let at: String
        /// The pipeline's name (and run's, and shard's, as its state names them).
        public let pipeline: String
        /// What happened: `upsert of 300000 rows`, `add column kArea REAL`.
        public let what: String
    }

    /// The address, for display (a PostgreSQL URL with its secrets hidden).
    public let address: String
    /// The table.
    public let table: String
    /// Its rows.
    public let rows: Int
    /// Its columns, in table order.
    public let columns: [Column]
    /// The last load Reform logged into it, if any.
    public let lastLoad: Entry?
    /// How many loads Reform logged into it.
    public let loads: Int
    /// The changes `schema: evolve` made to it, oldest first.
    public let changes: [Entry]

    /// The summary of the table `text` addresses (`sqlite:PATH#TABLE`, `postgres://…#TABLE`; the
    /// table may be left out when the database holds one); throws what is missing.
    public static func read(_ text: String) throws(InputError) -> TableSummary {
        guard let address = TableAddress(text) else {
            throw InputError(path: text, message: "not a table address; give sqlite:PATH#TABLE or postgres://HOST/DATABASE#TABLE")
        }
        switch address.engine {
        case .sqlite: return try readSQLite(address)
        case .postgres: return try readPostgres(address)
        }
    }

    /// The summary as text: the table and its rows, a column list, the last load and the changes.
    public var text: String {
        var out = "\(address): \(rows) row\(rows == 1 ? "" : "s"), \(columns.count) column\(columns.count == 1 ? "" : "s")\n"
        let table = [["COLUMN", "TYPE", "NULLS"]] + columns.map { [$0.name, $0.type.isEmpty ? "-" : $0.type, String($0.nulls)] }
        out += AlignedColumns.text(table, indent: "  ")
        if let lastLoad {
            out +=
                "last load: \(lastLoad.at) by pipeline '\(lastLoad.pipeline)': \(lastLoad.what) (\(loads) load\(loads == 1 ? "" : "s") logged)\n"
        } else {
            out += "no load logged (Reform logs each run that loads a table in _reform_loads)\n"
        }
        for change in changes { out += "changed: \(change.at) by pipeline '\(change.pipeline)': \(change.what)\n" }
        return out
    }

    /// The summary as JSON: `table`, `rows`, `columns` (name, type, nulls), `last_load`, `loads`, `changes`.
    public var json: Value {
        let entry = { (entry: Entry) -> Value in
            ["at": .string(entry.at), "pipeline": .string(entry.pipeline), "what": .string(entry.what)]
        }
        return [
            "address": .string(address), "table": .string(table), "rows": .int(rows),
            "columns": .array(columns.map { ["name": .string($0.name), "type": .string($0.type), "nulls": .int($0.nulls)] }),
            "last_load": lastLoad.map(entry) ?? .null, "loads": .int(loads), "changes": .array(changes.map(entry)),
        ]
    }

    private static func readSQLite(_ address: TableAddress) throws(InputError) -> TableSummary {
        let name = address.description
        if let problem = SQLitePath.problem(address.database) {
            throw InputError(path: name, message: "'\(address.database)' is \(problem); give the database file's path")
        }
        guard FilePaths.isFile(address.database) else { throw InputError(path: name, message: "no database file at \(address.database)") }
        do throws(SQLiteError) {
            let connection = try SQLiteConnection(path: address.database, create: false)
            let table = try TableReader.choose(address, among: try SQLiteTableRows.tables(on: connection), in: address.database).mapError {
                SQLiteError(code: 1, message: $0.message)
            }.get()
            let declared = try TableLoader.columns(of: table, on: connection)
            let counts = try connection.prepare(
                "SELECT count(*)" + declared.map { ", count(\(SQLiteConnection.quoted($0.name)))" }.joined()
                    + " FROM \(SQLiteConnection.quoted(table))",
                doing: "cannot count the rows of '\(table)'")
            _ = try counts.step(doing: "cannot count the rows of '\(table)'")
            let rows = counts.int(0)
            let columns = declared.enumerated().map { Column(name: $1.name, type: $1.type, nulls: rows - counts.int(Int32($0 + 1))) }
            func log(_ sql: String, _ logTable: String) throws(SQLiteError) -> [[String]] {
                guard try connection.hasTable(logTable) else { return [] }
                let query = try connection.prepare(sql, doing: "cannot read \(logTable)")
                query.bindText(1, table)
                var out: [[String]] = []
                while try query.step(doing: "cannot read \(logTable)") == .row {
                    out.append((0..<query.columnCount).map { query.text($0) })
                }
                return out
            }
            let loads = try log(
                "SELECT loaded_at, pipeline, mode, row_count FROM \(TableSchemaLog.loads) WHERE table_name = ?1 ORDER BY rowid",
                TableSchemaLog.loads)
            let changes = try log(
                "SELECT changed_at, pipeline, change, column_name, column_type FROM \(TableSchemaLog.table) WHERE table_name = ?1 ORDER BY rowid",
                TableSchemaLog.table)
            return summary(address: address, table: table, rows: rows, columns: columns, loads: loads, changes: changes)
        } catch {
            throw InputError(path: name, message: error.message)
        }
    }

    private static func readPostgres(_ address: TableAddress) throws(InputError) -> TableSummary {
        let url = PostgresURL(address.database)
        let name = address.description
        do throws(PostgresError) {
            let connection = try PostgresConnection(url: url)
            let table = try PostgresTableRows.choose(address, on: connection, in: url.displayName)
            let quoted = PostgresConnection.quotedTable(table)
            let declared = try PostgresSchema.columns(of: quoted, on: connection)
            let counts = try connection.query(
                "SELECT count(*)" + declared.map { ", count(\(PostgresConnection.quoted($0.name)))" }.joined() + " FROM \(quoted)",
                doing: "cannot count the rows of '\(table)'")
            let values = (counts.first ?? []).map { Int($0 ?? "") ?? 0 }
            let rows = values.first ?? 0
            let columns = declared.enumerated().map { index, column in
                Column(name: column.name, type: column.type, nulls: rows - (index + 1 < values.count ? values[index + 1] : 0))
            }
            func log(_ sql: String, _ logTable: String) throws(PostgresError) -> [[String]] {
                guard try connection.hasTable(logTable) else { return [] }
                return try connection.query(sql, [table], doing: "cannot read \(logTable)").map { $0.map { $0 ?? "" } }
            }
            let utc = "to_char(%@ AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
            let loads = try log(
                "SELECT \(utc.replacing("%@", with: "loaded_at")), pipeline, mode, row_count::text FROM \(TableSchemaLog.loads) "
                    + "WHERE table_name = $1 ORDER BY loaded_at", TableSchemaLog.loads)
            let changes = try log(
                "SELECT \(utc.replacing("%@", with: "changed_at")), pipeline, change, column_name, column_type FROM \(TableSchemaLog.table) "
                    + "WHERE table_name = $1 ORDER BY changed_at", TableSchemaLog.table)
            return summary(address: address, table: table, rows: rows, columns: columns, loads: loads, changes: changes)
        } catch {
            throw InputError(path: name, message: error.message)
        }
    }

    /// The summary from the logs' rows: loads (at, pipeline, mode, rows), changes (at, pipeline, change, column, type).
    private static func summary(address: TableAddress, table: String, rows: Int, columns: [Column], loads: [[String]], changes: [[String]])
        -> TableSummary
    {
        let last = loads.last.flatMap { row -> Entry? in
            guard row.count >= 4 else { return nil }
            return Entry(at: row[0], pipeline: row[1], what: "\(row[2]) of \(row[3]) row\(row[3] == "1" ? "" : "s")")
        }
        return TableSummary(
            address: address.description + (address.table == nil ? "#" + table : ""), table: table, rows: rows, columns: columns,
            lastLoad: last, loads: loads.count,
            changes: changes.compactMap { row in
                row.count >= 5 ? Entry(at: row[0], pipeline: row[1], what: "\(row[2]) \(row[3]) \(row[4])") : nil
            })
    }
}
