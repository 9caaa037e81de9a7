/// Checking a PostgreSQL table against the pipeline's columns, or creating it.
enum PostgresSchema {
    /// The types an existing column may have for each column type: values of the type load into
    /// them as COPY text (a wider or narrower type of the same family is the table owner's choice).
    static func accepts(_ column: TableColumn, declared type: String) -> Bool {
        let type = type.lowercased()
        guard column.isKnown else { return type == "text" || type.hasPrefix("character") }
        switch column.type {
        case .int: return ["bigint", "integer", "smallint"].contains(type)
        case .double: return type == "double precision" || type == "real" || type.hasPrefix("numeric")
        case .bool: return type == "boolean"
        case .text: return type == "text" || type.hasPrefix("character")
        case .date: return type.hasPrefix("timestamp") || type == "date"
        case .json: return type == "jsonb" || type == "json"
        }
    }

    /// Creates `plan`'s table when it is missing (with a unique index on the upsert key); checks
    /// an existing one has the pipeline's columns with types of the same family, and for upsert a
    /// unique index on the key. Never alters a table.
    static func prepareTable(_ plan: TablePlan, on connection: PostgresConnection) throws(PostgresError) {
        let table = PostgresConnection.quoted(plan.name)
        let found = try connection.query(
            "SELECT c.relkind::text FROM pg_class c WHERE c.oid = to_regclass($1)", [table],
            doing: "cannot read the schema")
        guard let kind = found.first?.first ?? nil else {
            var parts = plan.columns.map { "\(PostgresConnection.quoted($0.name)) \(columnType($0))" }
            if plan.mode == .upsert { parts.append("UNIQUE (\(plan.key.map(PostgresConnection.quoted).joined(separator: ", ")))") }
            try connection.execute(
                "CREATE TABLE \(table) (\(parts.joined(separator: ", ")))", doing: "cannot create table '\(plan.name)'")
            return
        }
        guard kind == "r" || kind == "p" else {
            let what = ["v": "view", "m": "materialized view", "f": "foreign table", "S": "sequence", "i": "index"][kind] ?? "relation"
            throw PostgresError(
                sqlState: "42809",
                message: "'\(plan.name)' in \(connection.displayName) is a \(what), not a table; give the output another table name")
        }
        let existing = try columns(of: table, on: connection)
        guard TableSchemaCheck.agrees(existing, with: plan, accepts: { accepts($0, declared: $1) }) else {
            throw PostgresError(
                sqlState: "42P16",
                message: TableSchemaCheck.mismatch(
                    plan, theirs: existing, ours: plan.columns.map { .init(name: $0.name, type: columnType($0)) }, quotedName: table))
        }
        if plan.mode == .upsert, try !hasUniqueIndex(on: plan.key, of: table, connection: connection) {
            throw PostgresError(sqlState: "42P10", message: TableSchemaCheck.noUniqueIndex(plan, quote: PostgresConnection.quoted))
        }
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
