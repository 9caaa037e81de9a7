/// The open transactions of one run's table outputs: one connection and one transaction per
/// database file, so that every table a run loads in one database commits (or rolls back) together.
///
/// The transaction is begun `IMMEDIATE` when the first output opens the database: another writer
/// is found out before any record is landed, and by the time the run commits, the write lock is
/// already held.
final class DatabaseTransactions {
    /// One database's connection and transaction.
    struct Open {
        /// The resolved path (the key).
        let path: String
        /// The connection, inside its transaction until commit or rollback.
        let connection: SQLiteConnection
    }

    private(set) var open: [Open] = []

    /// The connection to the database at `path` (`displayPath` in messages), opened and begun
    /// when it is the first output on it; folders above it are made as needed.
    func connection(to path: String, displayPath: String) throws(OutputError) -> SQLiteConnection {
        if let existing = open.first(where: { $0.path == path }) { return existing.connection }
        try OutputFile.makeFolders(for: path)
        do throws(SQLiteError) {
            let connection = try SQLiteConnection(path: path, displayPath: displayPath, create: true)
            try connection.execute("BEGIN IMMEDIATE", doing: "cannot start a transaction")
            open.append(Open(path: path, connection: connection))
            return connection
        } catch {
            throw OutputError(path: displayPath, message: DatabaseTransactions.explain(error))
        }
    }

    /// Commits every database's transaction; the first that fails rolls back the ones after it
    /// (those before it are committed) and throws.
    func commitAll() throws(OutputError) {
        var committed: [String] = []
        while !open.isEmpty {
            let next = open.removeFirst()
            do throws(SQLiteError) {
                try next.connection.execute("COMMIT", doing: "cannot commit the run's rows")
                committed.append(next.connection.displayPath)
            } catch {
                rollbackAll()
                let already = committed.isEmpty ? "; no table changed" : "; \(committed.joined(separator: ", ")) committed before it"
                throw OutputError(path: next.connection.displayPath, message: DatabaseTransactions.explain(error) + already)
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
