/// A failure SQLite reported: its result code, its own message and what Reform was doing.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's (extended) result code, as `sqlite3_extended_errcode` gives it.
    let code: Int32
    /// What failed, in words: what Reform was doing, then SQLite's message.
    let message: String

    /// Whether another connection holds the lock (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    var isBusy: Bool { code & 0xff == 5 || code & 0xff == 6 }

    /// Whether a constraint failed (`SQLITE_CONSTRAINT`: a unique index, a NOT NULL column).
    var isConstraint: Bool { code & 0xff == 19 }

    var description: String { message }
}
