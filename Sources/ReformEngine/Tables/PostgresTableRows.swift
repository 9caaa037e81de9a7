import ReformSDK

/// The rows of a PostgreSQL table (``TableReader``), streamed in libpq's single-row mode.
///
/// Values come back by their column's type: `boolean` as bools; `bigint`, `integer`, `smallint`
/// as ints; `double precision`, `real` as doubles and `numeric` as an int when whole, else a
/// double; `json`/`jsonb` parsed; `timestamptz` as the UTC ISO 8601 text `convert: date` makes
/// (`2024-05-01T10:00:00Z`), `timestamp` the same without the `Z`; NULL as null; anything else
/// (`date`, `text`, `uuid`, …) as PostgreSQL's text for it. Rows come in the table's stored order.
final class PostgresTableRows: TableRows {
    let table: String
    let columns: [String]
    private let connection: PostgresConnection
    private let name: String

    /// Connects to the address's server and starts reading the table; throws an ``InputError``
    /// saying what is missing (the server, or the table, with the tables there are).
    init(_ address: TableAddress) throws(InputError) {
        let url = PostgresURL(address.database)
        name = address.description
        do throws(PostgresError) {
            connection = try PostgresConnection(url: url)
            table = try PostgresTableRows.choose(address, on: connection, in: url.displayName)
            let quoted = PostgresConnection.quotedTable(table)
            columns = try PostgresSchema.columns(of: quoted, on: connection).map(\.name)
            try connection.startRows("SELECT * FROM \(quoted)", doing: "cannot read table '\(table)'")
        } catch {
            throw InputError(path: address.description, message: error.message)
        }
    }

    /// The table `address` names: a schema-qualified one (`analytics.issues`) as it is when it is
    /// there, else one of the current schema's (``TableReader/choose(_:among:in:)``).
    static func choose(_ address: TableAddress, on connection: PostgresConnection, in database: String) throws(PostgresError) -> String {
        if let name = address.table, TablePlan.schemaAndTable(name) != nil, try connection.hasTable(PostgresConnection.quotedTable(name)) {
            return name
        }
        return try TableReader.choose(address, among: try tables(on: connection), in: database).mapError {
            PostgresError(sqlState: "42P01", message: $0.message)
        }.get()
    }

    /// The tables (and views) of the connection's current schema, in the order they were made
    /// (Reform's own, `_reform_…`, left out).
    static func tables(on connection: PostgresConnection) throws(PostgresError) -> [String] {
        try connection.query(
            "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname = current_schema() "
                + "AND c.relname NOT LIKE '\\_reform\\_%' ORDER BY c.oid",
            doing: "cannot read the database's tables"
        ).compactMap { $0.first ?? nil }
    }

    func next() throws(InputError) -> Value? {
        let row: (values: [String?], types: [UInt32])?
        do { row = try connection.nextRow(doing: "cannot read table '\(table)'") } catch {
            throw InputError(path: name, message: error.message)
        }
        guard let row else { return nil }
        var object = Object(minimumCapacity: columns.count)
        for (index, column) in columns.enumerated() where index < row.values.count {
            object.appendNew(key: column, value: PostgresTableRows.value(row.values[index], type: row.types[index]))
        }
        return .object(object)
    }

    /// `text` (PostgreSQL's text output) as the value its type (an OID) stands for.
    static func value(_ text: String?, type: UInt32) -> Value {
        guard let text else { return .null }
        switch type {
        case 16: return .bool(text == "t")
        case 20, 21, 23: return Int(text).map(Value.int) ?? .string(text)
        case 700, 701: return Double(text).map(Value.double) ?? .string(text)
        case 1700:
            if let i = Int(text) { return .int(i) }
            return Double(text).map(Value.double) ?? .string(text)
        case 114, 3802: return (try? JSON.parse(Array(text.utf8))) ?? .string(text)
        case 1184: return .string(isoDateTime(text, utc: true))
        case 1114: return .string(isoDateTime(text, utc: false))
        default: return .string(text)
        }
    }

    /// `2024-05-01 10:00:00+00` (the session is in UTC) as `2024-05-01T10:00:00Z`.
    private static func isoDateTime(_ text: String, utc: Bool) -> String {
        var out = text.replacing(" ", with: "T")
        if utc, out.hasSuffix("+00") { out = String(out.dropLast(3)) + "Z" }
        return out
    }
}
