import ReformSDK

/// Where an incremental run whose outputs are tables keeps its state: the table `_reform_state`
/// of the same database, one row per pipeline (and run, and shard), manager and partition,
/// written in the run's transaction with the rows it describes.
///
/// A crash or a failure rolls both back, so the table never holds rows without the state that
/// describes them, nor state without its rows; there are no checkpoints inside the transaction:
/// a killed run's next run starts again from the last committed bookmark (an upsert on the key
/// keeps the rows it lands again from doubling).
struct TableStateStore {
    /// The state table's name.
    static let table = "_reform_state"

    /// SQLite or PostgreSQL.
    let engine: TablePlan.Engine
    /// The SQLite file, or the PostgreSQL connection string (resolved).
    let database: String
    /// The pipeline's state name (its name, the run's and the shard's; as the state file's).
    let pipeline: String

    /// The saved state of the pipeline's managers, `manager → partition → state` (empty when
    /// there is none yet).
    func load() throws(RunError) -> Object {
        var managers = Object()
        let rows: [(String, String, String)]
        switch engine {
        case .sqlite:
            rows = try loadSQLite()
        case .postgres:
            rows = try loadPostgres()
        }
        for (manager, partition, text) in rows {
            guard case .object(let state)? = try? JSON.parse(Array(text.utf8)) else {
                throw RunError(
                    .system,
                    "\(TableStateStore.table) in \(displayName) holds a state for manager '\(manager)' that is not JSON; "
                        + "delete its rows (DELETE FROM \(TableStateStore.table) WHERE pipeline = '\(pipeline)') to start from nothing")
            }
            var partitions = managers[manager]?.objectValue ?? Object()
            partitions[partition] = .object(state)
            managers[manager] = .object(partitions)
        }
        return managers
    }

    /// Replaces the pipeline's state rows with `managers`, inside the run's open transaction on
    /// the database (created with the table when the run made none).
    func save(_ managers: Object, in transactions: DatabaseTransactions) throws(RunError) {
        var rows: [[String?]] = []
        for manager in managers.members {
            for partition in manager.value.objectValue?.members ?? [] {
                rows.append([pipeline, manager.key, partition.key, JSON.compactString(partition.value)])
            }
        }
        let create =
            "CREATE TABLE IF NOT EXISTS \(TableStateStore.table) (pipeline TEXT NOT NULL, manager TEXT NOT NULL, "
            + "\"partition\" TEXT NOT NULL, state TEXT NOT NULL, PRIMARY KEY (pipeline, manager, \"partition\"))"
        do throws(OutputError) {
            switch engine {
            case .sqlite:
                let connection = try transactions.connection(to: database, displayPath: database)
                do throws(SQLiteError) {
                    try connection.execute(create, doing: "cannot make the state table")
                    let delete = try connection.prepare(
                        "DELETE FROM \(TableStateStore.table) WHERE pipeline = ?1", doing: "cannot replace the saved state")
                    delete.bindText(1, pipeline)
                    try delete.step(doing: "cannot replace the saved state")
                    let insert = try connection.prepare(
                        "INSERT INTO \(TableStateStore.table) VALUES (?1, ?2, ?3, ?4)", doing: "cannot save the state")
                    for row in rows {
                        for (index, value) in row.enumerated() { insert.bindText(Int32(index + 1), value ?? "") }
                        try insert.step(doing: "cannot save the state")
                        insert.reset()
                    }
                } catch {
                    throw OutputError(path: database, message: error.message)
                }
            case .postgres:
                let url = PostgresURL(database)
                let connection = try transactions.connection(to: url)
                do throws(PostgresError) {
                    try connection.execute(create, doing: "cannot make the state table")
                    _ = try connection.query(
                        "DELETE FROM \(TableStateStore.table) WHERE pipeline = $1", [pipeline], doing: "cannot replace the saved state")
                    for row in rows {
                        _ = try connection.query(
                            "INSERT INTO \(TableStateStore.table) VALUES ($1, $2, $3, $4)", row, doing: "cannot save the state")
                    }
                } catch {
                    throw OutputError(path: url.displayName, message: error.message)
                }
            }
        } catch {
            throw RunError(error)
        }
    }

    /// Forgets what the pipeline keeps for `manager` (every manager when `nil`): deletes its rows
    /// of `_reform_state`; and drops the tables `dropping` names (each logged as `drop table` in
    /// `_reform_schema_log`), all in one transaction of its own. The state table being absent is
    /// nothing to forget; a dropped table being absent is nothing to drop.
    func forget(manager: String?, partition: String? = nil, dropping tables: [String] = []) throws(RunError) {
        let transactions = DatabaseTransactions()
        defer { transactions.rollbackAll() }
        let filter = manager == nil ? "" : " AND manager = "
        let partitionFilter = manager != nil && partition != nil
        do throws(OutputError) {
            switch engine {
            case .sqlite:
                guard FilePaths.isFile(database) else { return }
                let connection = try transactions.connection(to: database, displayPath: database)
                do throws(SQLiteError) {
                    if try connection.hasTable(TableStateStore.table) {
                        let delete = try connection.prepare(
                            "DELETE FROM \(TableStateStore.table) WHERE pipeline = ?1" + (manager == nil ? "" : filter + "?2")
                                + (partitionFilter ? " AND \"partition\" = ?3" : ""),
                            doing: "cannot forget the saved state")
                        delete.bindText(1, pipeline)
                        if let manager { delete.bindText(2, manager) }
                        if partitionFilter, let partition { delete.bindText(3, partition) }
                        try delete.step(doing: "cannot forget the saved state")
                    }
                    for table in tables where try connection.hasTable(table) {
                        try connection.execute("DROP TABLE \(SQLiteConnection.quoted(table))", doing: "cannot drop table '\(table)'")
                        try connection.execute(TableSchemaLog.createSQLite, doing: "cannot make \(TableSchemaLog.table)")
                        let log = try connection.prepare(TableSchemaLog.insertSQLite, doing: "cannot write \(TableSchemaLog.table)")
                        for (index, text) in [pipeline, table, TableSchemaLog.dropTable, "", ""].enumerated() {
                            log.bindText(Int32(index + 1), text)
                        }
                        try log.step(doing: "cannot write \(TableSchemaLog.table)")
                    }
                } catch {
                    throw OutputError(path: database, message: DatabaseTransactions.explain(error))
                }
            case .postgres:
                let url = PostgresURL(database)
                let connection = try transactions.connection(to: url)
                do throws(PostgresError) {
                    if try connection.hasTable(TableStateStore.table) {
                        _ = try connection.query(
                            "DELETE FROM \(TableStateStore.table) WHERE pipeline = $1" + (manager == nil ? "" : filter + "$2")
                                + (partitionFilter ? " AND \"partition\" = $3" : ""),
                            [pipeline] + (manager.map { [$0] } ?? []) + (partitionFilter ? [partition] : []),
                            doing: "cannot forget the saved state")
                    }
                    for table in tables where try connection.hasTable(PostgresConnection.quotedTable(table)) {
                        _ = try connection.query(
                            "DROP TABLE \(PostgresConnection.quotedTable(table))", doing: "cannot drop table '\(table)'")
                        _ = try connection.query(TableSchemaLog.createPostgres, doing: "cannot make \(TableSchemaLog.table)")
                        _ = try connection.query(
                            TableSchemaLog.insertPostgres, [pipeline, table, TableSchemaLog.dropTable, "", ""],
                            doing: "cannot write \(TableSchemaLog.table)")
                    }
                } catch {
                    throw OutputError(path: url.displayName, message: error.message)
                }
            }
            try transactions.commitAll()
        } catch {
            throw RunError(error)
        }
    }

    /// The database for messages.
    var displayName: String { engine == .sqlite ? database : PostgresURL(database).displayName }

    private func loadSQLite() throws(RunError) -> [(String, String, String)] {
        guard FilePaths.isFile(database) else { return [] }
        do throws(SQLiteError) {
            let connection = try SQLiteConnection(path: database, create: false)
            guard try connection.hasTable(TableStateStore.table) else { return [] }
            let query = try connection.prepare(
                "SELECT manager, \"partition\", state FROM \(TableStateStore.table) WHERE pipeline = ?1 ORDER BY rowid",
                doing: "cannot read the saved state")
            query.bindText(1, pipeline)
            var rows: [(String, String, String)] = []
            while try query.step(doing: "cannot read the saved state") == .row {
                rows.append((query.text(0), query.text(1), query.text(2)))
            }
            return rows
        } catch {
            throw RunError(.system, "\(database): \(DatabaseTransactions.explain(error))")
        }
    }

    private func loadPostgres() throws(RunError) -> [(String, String, String)] {
        let url = PostgresURL(database)
        do throws(PostgresError) {
            let connection = try PostgresConnection(url: url)
            guard try connection.hasTable(TableStateStore.table) else { return [] }
            return try connection.query(
                "SELECT manager, \"partition\", state FROM \(TableStateStore.table) WHERE pipeline = $1 ORDER BY manager, \"partition\"",
                [pipeline], doing: "cannot read the saved state"
            ).map { ($0[0] ?? "", $0[1] ?? "", $0[2] ?? "") }
        } catch {
            throw RunError(.system, "\(url.displayName): \(error.message)")
        }
    }
}
