/// Checking a PostgreSQL table against the pipeline's columns (and changing it, when its contract
/// says), or creating it.
enum PostgresSchema {
    /// The types an existing column may have for each column type: values of the type load into
    /// them as COPY text (a wider or narrower type of the same family is the table owner's choice).
    static func accepts(_ column: TableColumn, declared type: String) -> Bool {
        kind(of: type) == (column.isKnown ? column.type : .text)
    }

    /// Creates `plan`'s table when it is missing (with a unique index on the upsert key, and an
    /// index on a child table's parent key), or
    /// settles its columns with the table's by the output's contract (``TableSettlement``),
    /// adding the new ones for `schema: evolve` and logging them (`pipeline` names the run in the
    /// log); for upsert, checks a unique index on the key. Returns the columns rows are loaded into.
    static func prepareTable(_ plan: TablePlan, pipeline: String, on connection: PostgresConnection) throws(PostgresError)
        -> TableSettlement
    {
        let table = PostgresConnection.quotedTable(plan.name)
        let found = try connection.query(
            "SELECT c.relkind::text FROM pg_class c WHERE c.oid = to_regclass($1)", [table],
            doing: "cannot read the schema")
        guard let kind = found.first?.first ?? nil else {
            if let schema = TablePlan.schemaAndTable(plan.name)?.schema,
                try connection.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema], doing: "cannot read the schemas").isEmpty
            {
                try connection.execute(
                    "CREATE SCHEMA \(PostgresConnection.quoted(schema))", doing: "cannot create schema '\(schema)' for table '\(plan.name)'"
                )
            }
            var parts = plan.columns.map { "\(PostgresConnection.quoted($0.name)) \(columnType($0))" }
            if plan.mode == .upsert { parts.append("UNIQUE (\(plan.key.map(PostgresConnection.quoted).joined(separator: ", ")))") }
            try connection.execute(
                "CREATE TABLE \(table) (\(parts.joined(separator: ", ")))", doing: "cannot create table '\(plan.name)'")
            if !plan.lookupIndex.isEmpty {
                // Named by PostgreSQL (a name made from the table's could pass 63 bytes).
                try connection.execute(
                    "CREATE INDEX ON \(table) (\(plan.lookupIndex.map(PostgresConnection.quoted).joined(separator: ", ")))",
                    doing: "cannot index table '\(plan.name)'")
            }
            return TableSettlement.created(plan)
        }
        guard kind == "r" || kind == "p" else {
            let what = ["v": "view", "m": "materialized view", "f": "foreign table", "S": "sequence", "i": "index"][kind] ?? "relation"
            throw PostgresError(
                sqlState: "42809",
                message: "'\(plan.name)' in \(connection.displayName) is a \(what), not a table; give the output another table name")
        }
        let existing = try settledColumns(of: table, on: connection)
        let settlement: TableSettlement
        do throws(TableSettlement.Refusal) {
            settlement = try TableSettlement.settle(
                plan, existing: existing, accepts: { accepts($0, declared: $1) },
                describe: columnType, quotedName: table, narrowInteger: { ["integer", "smallint"].contains($0.lowercased()) })
        } catch {
            throw PostgresError(sqlState: "42P16", message: error.message)
        }
        for (column, _) in settlement.widened {
            let name = PostgresConnection.quoted(column.name)
            try connection.execute(
                "ALTER TABLE \(table) ALTER COLUMN \(name) TYPE \(columnType(column)) USING \(name)::\(columnType(column))",
                doing: "cannot widen column \(column.name) of '\(plan.name)'")
        }
        for column in settlement.added {
            try connection.execute(
                "ALTER TABLE \(table) ADD COLUMN \(PostgresConnection.quoted(column.name)) \(columnType(column))",
                doing: "cannot add column \(column.name) to '\(plan.name)'")
        }
        let changes =
            settlement.widened.map { (TableSchemaLog.widenColumn, $0.column) } + settlement.added.map { (TableSchemaLog.addColumn, $0) }
        if !changes.isEmpty {
            try connection.execute(TableSchemaLog.createPostgres, doing: "cannot make \(TableSchemaLog.table)")
            for (change, column) in changes {
                _ = try connection.query(
                    TableSchemaLog.insertPostgres, [pipeline, plan.name, change, column.name, columnType(column)],
                    doing: "cannot write \(TableSchemaLog.table)")
            }
        }
        if plan.mode == .upsert, try !hasUniqueIndex(on: plan.key, of: table, connection: connection) {
            throw PostgresError(
                sqlState: "42P10", message: TableSchemaCheck.noUniqueIndex(plan, quote: PostgresConnection.quoted, quotedTable: table))
        }
        return settlement
    }

    /// The columns of `table` (quoted) for ``TableSettlement``: declared types, whether a row
    /// must give a value, and the type each declared type stands for.
    private static func settledColumns(of table: String, on connection: PostgresConnection) throws(PostgresError)
        -> [TableSettlement.Existing]
    {
        try connection.query(
            "SELECT attname::text, format_type(atttypid, atttypmod), (attnotnull AND NOT atthasdef AND attidentity = '')::text "
                + "FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            [table], doing: "cannot read the columns of \(table)"
        ).map { row in
            let type = row[1] ?? ""
            return TableSettlement.Existing(name: row[0] ?? "", type: type, required: row[2] == "true", kind: kind(of: type))
        }
    }

    /// The type a PostgreSQL column's declared type (as `format_type` spells it) stands for;
    /// `nil` for types Reform does not make (`uuid`, arrays, …).
    static func kind(of declared: String) -> ColumnType? {
        let type = declared.lowercased()
        if ["bigint", "integer", "smallint"].contains(type) { return .int }
        if type == "double precision" || type == "real" || type.hasPrefix("numeric") { return .double }
        if type == "boolean" { return .bool }
        if type == "text" || type.hasPrefix("character") { return .text }
        if type.hasPrefix("timestamp") || type == "date" { return .date }
        if type == "jsonb" || type == "json" { return .json }
        return nil
    }

    /// The type `column` is created with: its type's, or `text` when nothing says (values are
    /// then text as they are, or their JSON text).
    static func columnType(_ column: TableColumn) -> String {
        column.isKnown ? column.type.postgresType : "text"
    }

    /// The columns of `table` (quoted) in order, with their types as `format_type` spells them.
    static func columns(of table: String, on connection: PostgresConnection) throws(PostgresError) -> [TableSchemaCheck.Column] {
        try connection.query(
            "SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute "
                + "WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            [table], doing: "cannot read the columns of \(table)"
        ).map { TableSchemaCheck.Column(name: $0[0] ?? "", type: $0[1] ?? "") }
    }

    /// Whether `table` (quoted) has a unique index (or primary key) on exactly the columns `key`,
    /// without a predicate (ON CONFLICT needs one that covers every row).
    private static func hasUniqueIndex(on key: [String], of table: String, connection: PostgresConnection) throws(PostgresError)
        -> Bool
    {
        let indexes = try connection.query(
            "SELECT string_agg(a.attname::text, chr(1)) FROM pg_index i "
                + "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
                + "WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL "
                + "GROUP BY i.indexrelid",
            [table], doing: "cannot read the indexes of \(table)")
        let wanted = Set(key)
        return indexes.contains { row in
            Set((row.first ?? nil)?.split(separator: "\u{1}").map(String.init) ?? []) == wanted
        }
    }
}
