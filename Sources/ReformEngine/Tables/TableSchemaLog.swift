/// `_reform_schema_log`: one row per change `schema: evolve` made to a table (when, which
/// pipeline and run, which table, what), written in the run's transaction with the change, in
/// the database of the table; and `_reform_loads`, one row per run that loaded a table (when,
/// which pipeline, which table, the mode, how many rows), what `reform show` says of its last
/// load.
enum TableSchemaLog {
    /// The log table's name.
    static let table = "_reform_schema_log"
    /// The `change` of a column added.
    static let addColumn = "add column"
    /// The `change` of a column given a wider type (`widen: true`); the log's type is the new one.
    static let widenColumn = "widen column"
    /// The `change` of a table dropped with its state (`reform state drop --with-tables`).
    static let dropTable = "drop table"

    /// Makes the SQLite log when missing.
    static let createSQLite =
        "CREATE TABLE IF NOT EXISTS \(table) (changed_at TEXT NOT NULL, pipeline TEXT NOT NULL, table_name TEXT NOT NULL, "
        + "change TEXT NOT NULL, column_name TEXT NOT NULL, column_type TEXT NOT NULL)"
    /// One SQLite log row: pipeline, table, change, column, type (the time is the database's, UTC).
    static let insertSQLite =
        "INSERT INTO \(table) VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?1, ?2, ?3, ?4, ?5)"

    /// Makes the PostgreSQL log when missing.
    static let createPostgres =
        "CREATE TABLE IF NOT EXISTS \(table) (changed_at timestamptz NOT NULL DEFAULT now(), pipeline text NOT NULL, "
        + "table_name text NOT NULL, change text NOT NULL, column_name text NOT NULL, column_type text NOT NULL)"
    /// One PostgreSQL log row: pipeline, table, change, column, type (the time is the
    /// transaction's start).
    static let insertPostgres =
        "INSERT INTO \(table) (pipeline, table_name, change, column_name, column_type) VALUES ($1, $2, $3, $4, $5)"

    /// The load log's name.
    static let loads = "_reform_loads"

    /// Makes the SQLite load log when missing.
    static let createLoadsSQLite =
        "CREATE TABLE IF NOT EXISTS \(loads) (loaded_at TEXT NOT NULL, pipeline TEXT NOT NULL, table_name TEXT NOT NULL, "
        + "mode TEXT NOT NULL, row_count INTEGER NOT NULL)"
    /// One SQLite load row: pipeline, table, mode, rows.
    static let insertLoadSQLite = "INSERT INTO \(loads) VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?1, ?2, ?3, ?4)"

    /// Makes the PostgreSQL load log when missing.
    static let createLoadsPostgres =
        "CREATE TABLE IF NOT EXISTS \(loads) (loaded_at timestamptz NOT NULL DEFAULT now(), pipeline text NOT NULL, "
        + "table_name text NOT NULL, mode text NOT NULL, row_count bigint NOT NULL)"
    /// One PostgreSQL load row: pipeline, table, mode, rows.
    static let insertLoadPostgres = "INSERT INTO \(loads) (pipeline, table_name, mode, row_count) VALUES ($1, $2, $3, $4)"
}
