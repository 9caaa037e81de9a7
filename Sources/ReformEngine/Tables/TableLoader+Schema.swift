/// Checking an SQLite table against the pipeline's columns (and changing it, when its contract
/// says), or creating it.
extension TableLoader {
    /// A column as the database declares it.
    struct ExistingColumn {
        let name: String
        let type: String
        let primaryKey: Int
        let notNull: Bool
        let hasDefault: Bool
    }

    /// Creates `plan`'s table when it is missing (with a unique index on the upsert key, and an
    /// index on a child table's parent key), or
    /// settles its columns with the table's by the output's contract (``TableSettlement``),
    /// adding the new ones for `schema: evolve` and logging them (`pipeline` names the run in the
    /// log); for upsert, checks a unique index on the key. Returns the columns rows are loaded into.
    static func prepareTable(_ plan: TablePlan, pipeline: String, on connection: SQLiteConnection) throws(SQLiteError)
        -> TableSettlement
    {
        let table = SQLiteConnection.quoted(plan.name)
        let kind = try objectKind(plan.name, on: connection)
        guard let kind else {
            var parts = plan.columns.map { "\(SQLiteConnection.quoted($0.name)) \($0.type.sqlType)" }
            if plan.mode == .upsert { parts.append("UNIQUE (\(plan.key.map(SQLiteConnection.quoted).joined(separator: ", ")))") }
            try connection.execute(
                "CREATE TABLE \(table) (\(parts.joined(separator: ", ")))", doing: "cannot create table '\(plan.name)'")
            if !plan.lookupIndex.isEmpty {
                try connection.execute(
                    "CREATE INDEX \(SQLiteConnection.quoted(plan.name + "_by_parent")) ON \(table) "
                        + "(\(plan.lookupIndex.map(SQLiteConnection.quoted).joined(separator: ", ")))",
                    doing: "cannot index table '\(plan.name)'")
            }
            return TableSettlement.created(plan)
        }
        guard kind == "table" else {
            throw SQLiteError(
                code: 1,
                message: "'\(plan.name)' in \(connection.displayPath) is a \(kind), not a table; give the output another table name")
        }
        let existing = try columns(of: plan.name, on: connection)
        let settlement: TableSettlement
        do throws(TableSettlement.Refusal) {
            settlement = try TableSettlement.settle(
                plan,
                existing: existing.map {
                    .init(
                        name: $0.name, type: $0.type, required: $0.notNull && !$0.hasDefault && $0.primaryKey == 0,
                        kind: columnType(of: $0.type))
                },
                accepts: { column, type in affinity(of: column.type.sqlType) == affinity(of: type) }, describe: { $0.type.sqlType },
                quotedName: table)
        } catch {
            throw SQLiteError(code: 1, message: error.message)
        }
        if !settlement.widened.isEmpty {
            try SQLiteWidening.widen(
                plan.name, to: Dictionary(settlement.widened.map { ($0.column.name, $0.column.type.sqlType) }) { first, _ in first },
                on: connection)
        }
        for column in settlement.added {
            try connection.execute(
                "ALTER TABLE \(table) ADD COLUMN \(SQLiteConnection.quoted(column.name)) \(column.type.sqlType)",
                doing: "cannot add column \(column.name) to '\(plan.name)'")
        }
        let changes =
            settlement.widened.map { (TableSchemaLog.widenColumn, $0.column) } + settlement.added.map { (TableSchemaLog.addColumn, $0) }
        if !changes.isEmpty {
            try log(changes, to: plan, pipeline: pipeline, on: connection)
        }
        if plan.mode == .upsert, try !hasUniqueIndex(on: plan.key, of: plan.name, existing: existing, connection: connection) {
            throw SQLiteError(code: 1, message: TableSchemaCheck.noUniqueIndex(plan, quote: SQLiteConnection.quoted))
        }
        return settlement
    }

    /// Writes one row per change `schema: evolve` made (a column widened or added) to
    /// `_reform_schema_log`, in the run's transaction (made when missing).
    private static func log(
        _ changes: [(change: String, column: TableColumn)], to plan: TablePlan, pipeline: String, on connection: SQLiteConnection
    ) throws(SQLiteError) {
        try connection.execute(TableSchemaLog.createSQLite, doing: "cannot make \(TableSchemaLog.table)")
        let insert = try connection.prepare(TableSchemaLog.insertSQLite, doing: "cannot write \(TableSchemaLog.table)")
        for (change, column) in changes {
            insert.bindText(1, pipeline)
            insert.bindText(2, plan.name)
            insert.bindText(3, change)
            insert.bindText(4, column.name)
            insert.bindText(5, column.type.sqlType)
            try insert.step(doing: "cannot write \(TableSchemaLog.table)")
            insert.reset()
        }
    }

    /// The type an SQLite column's declared type stands for: `BOOLEAN` and `JSON` as Reform
    /// declares them, else by affinity; a column declared without a type holds any value (JSON).
    static func columnType(of declared: String) -> ColumnType? {
        let type = declared.uppercased()
        if type.contains("BOOL") { return .bool }
        if type.contains("JSON") || type.isEmpty { return .json }
        switch affinity(of: type) {
        case "INTEGER": return .int
        case "TEXT": return .text
        case "REAL", "NUMERIC": return .double
        default: return nil
        }
    }

    /// `table`, `view`, … for the schema object called `name`; nil when there is none.
    private static func objectKind(_ name: String, on connection: SQLiteConnection) throws(SQLiteError) -> String? {
        let query = try connection.prepare(
            "SELECT type FROM sqlite_master WHERE name = ?1 COLLATE NOCASE AND type IN ('table', 'view')",
            doing: "cannot read the schema")
        query.bindText(1, name)
        guard try query.step(doing: "cannot read the schema") == .row else { return nil }
        return query.text(0)
    }

    /// The columns of `table` in order, with their declared types.
    static func columns(of table: String, on connection: SQLiteConnection) throws(SQLiteError) -> [ExistingColumn] {
        let query = try connection.prepare(
            "SELECT name, type, pk, \"notnull\", dflt_value IS NOT NULL FROM pragma_table_info(?1)",
            doing: "cannot read the columns of '\(table)'")
        query.bindText(1, table)
        var columns: [ExistingColumn] = []
        while try query.step(doing: "cannot read the columns of '\(table)'") == .row {
            columns.append(
                ExistingColumn(
                    name: query.text(0), type: query.text(1).uppercased(), primaryKey: query.int(2), notNull: query.int(3) != 0,
                    hasDefault: query.int(4) != 0))
        }
        return columns
    }

    /// Whether `table` has a unique index (or primary key) on exactly the columns `key`.
    private static func hasUniqueIndex(
        on key: [String], of table: String, existing: [ExistingColumn], connection: SQLiteConnection
    ) throws(SQLiteError) -> Bool {
        let wanted = Set(key.map { $0.lowercased() })
        // An INTEGER PRIMARY KEY is the rowid: it has no index of its own in the list below.
        let primaryKey = Set(existing.filter { $0.primaryKey > 0 }.map { $0.name.lowercased() })
        if primaryKey == wanted { return true }
        let indexes = try connection.prepare(
            "SELECT name FROM pragma_index_list(?1) WHERE \"unique\" = 1 AND partial = 0", doing: "cannot read the indexes of '\(table)'")
        indexes.bindText(1, table)
        var names: [String] = []
        while try indexes.step(doing: "cannot read the indexes of '\(table)'") == .row { names.append(indexes.text(0)) }
        for name in names {
            let info = try connection.prepare("SELECT name FROM pragma_index_info(?1)", doing: "cannot read index '\(name)'")
            info.bindText(1, name)
            var columns: Set<String> = []
            while try info.step(doing: "cannot read index '\(name)'") == .row { columns.insert(info.text(0).lowercased()) }
            if columns == wanted { return true }
        }
        return false
    }

    /// SQLite's type affinity of a declared type (section 3.1 of its datatype documentation).
    static func affinity(of declared: String) -> String {
        let type = declared.uppercased()
        if type.contains("INT") { return "INTEGER" }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return "TEXT" }
        if type.contains("BLOB") || type.isEmpty { return "BLOB" }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return "REAL" }
        return "NUMERIC"
    }
}
