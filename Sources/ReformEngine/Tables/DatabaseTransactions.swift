/// The open transactions of one run's table outputs: one connection and one transaction per
/// database (an SQLite file, a PostgreSQL URL), so that every table a run loads in one database
/// commits (or rolls back) together.
///
/// An SQLite transaction is begun `IMMEDIATE` when the first output opens the database: another
/// writer is found out before any record is landed, and by the time the run commits, the write
/// lock is already held. A PostgreSQL transaction is begun when the first output connects; a
/// killed run's connection closes and the server rolls it back.
final class DatabaseTransactions {
    /// One database's connection and transaction.
    struct Open {
        /// The resolved path or connection string (the key).
        let key: String
        /// The connection, inside its transaction until commit or rollback.
        let connection: Connection
    }

    /// A connection to one of the databases Reform loads.
    enum Connection {
        case sqlite(SQLiteConnection)
        case postgres(PostgresConnection)

        /// The database for messages (a PostgreSQL URL with its secrets hidden).
        var displayName: String {
            switch self {
            case .sqlite(let connection): connection.displayPath
            case .postgres(let connection): connection.displayName
            }
        }

        var inTransaction: Bool {
            switch self {
            case .sqlite(let connection): connection.inTransaction
            case .postgres(let connection): connection.inTransaction
            }
        }

        /// Runs `sql` (COMMIT, ROLLBACK); throws the database's message.
        func execute(_ sql: String, doing what: String) throws(OutputError) {
            switch self {
            case .sqlite(let connection):
                do throws(SQLiteError) { try connection.execute(sql, doing: what) } catch {
                    throw OutputError(path: connection.displayPath, message: DatabaseTransactions.explain(error))
                }
            case .postgres(let connection):
                do throws(PostgresError) { try connection.execute(sql, doing: what) } catch {
                    throw OutputError(path: connection.displayName, message: error.message)
                }
            }
        }
    }

    private(set) var open: [Open] = []
    /// Whether ``commitAll()`` rolls PostgreSQL transactions back instead (``RunOptions/rollsBackPostgres``).
    var rollsBackPostgres = false
    /// The PostgreSQL databases ``commitAll()`` rolled back as asked, for the run's summary.
    private(set) var rolledBack: [String] = []

    /// The connection to the database at `path` (`displayPath` in messages), opened and begun
    /// when it is the first output on it; folders above it are made as needed.
    func connection(to path: String, displayPath: String) throws(OutputError) -> SQLiteConnection {
        for database in open where database.key == path {
            if case .sqlite(let connection) = database.connection { return connection }
        }
        try OutputFile.makeFolders(for: path)
        do throws(SQLiteError) {
            let connection = try SQLiteConnection(path: path, displayPath: displayPath, create: true)
            try connection.execute("BEGIN IMMEDIATE", doing: "cannot start a transaction")
            open.append(Open(key: path, connection: .sqlite(connection)))
            return connection
        } catch {
            throw OutputError(path: displayPath, message: DatabaseTransactions.explain(error))
        }
    }

    /// The connection to the PostgreSQL server at `url`, connected and begun when it is the
    /// first output on it.
    func connection(to url: PostgresURL) throws(OutputError) -> PostgresConnection {
        for database in open where database.key == url.connectionString {
            if case .postgres(let connection) = database.connection { return connection }
        }
        do throws(PostgresError) {
            let connection = try PostgresConnection(url: url)
            try connection.execute("BEGIN", doing: "cannot start a transaction")
            open.append(Open(key: url.connectionString, connection: .postgres(connection)))
            return connection
        } catch {
            throw OutputError(path: url.displayName, message: error.message)
        }
    }

    /// Commits every database's transaction; the first that fails rolls back the ones after it
    /// (those before it are committed) and throws.
    func commitAll() throws(OutputError) {
        var committed: [String] = []
        while !open.isEmpty {
            let next = open.removeFirst()
            do throws(OutputError) {
                if rollsBackPostgres, case .postgres = next.connection {
                    try next.connection.execute("ROLLBACK", doing: "cannot roll back the run's rows")
                    rolledBack.append(next.connection.displayName)
                    continue
                }
                try next.connection.execute("COMMIT", doing: "cannot commit the run's rows")
                committed.append(next.connection.displayName)
            } catch {
                rollbackAll()
                let already = committed.isEmpty ? "; no table changed" : "; \(committed.joined(separator: ", ")) committed before it"
                throw OutputError(path: error.path, message: error.message + already)
            }
        }
    }

    /// Rolls back every open transaction: the tables are as they were before the run.
    func rollbackAll() {
        for database in open where database.connection.inTransaction {
            try? database.connection.execute("ROLLBACK", doing: "cannot roll back")
        }
        open.removeAll()
    }

    deinit {
        rollbackAll()
    }

    /// `error`'s message, with what to do when another connection holds the database.
    static func explain(_ error: SQLiteError) -> String {
        guard error.isBusy else { return error.message }
        return error.message
            + " (another program is writing to this database: another run, or a sqlite3 shell inside a transaction; "
            + "try again when it is done)"
    }
}
