/// A failure PostgreSQL (or libpq) reported: what Reform was doing, then the server's message,
/// with every secret of the connection URL hidden.
struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`: a unique index; `08006`: the connection failed);
    /// empty when libpq failed before the server answered.
    let sqlState: String
    /// What failed, in words.
    let message: String
    /// The server's own message and its detail, without what Reform was doing (for a refused
    /// row's dead-letter entry).
    var reason = ""
    /// The server's context (`COPY listings, line 3, column kRooms: "one"`).
    var context = ""

    /// Whether the server refused a row's data (SQLSTATE class 22, a data exception: a value out
    /// of range, a bad date) or a constraint (class 23: a unique index, a check, a foreign key),
    /// rather than the statement or the connection failing.
    var isRowRefusal: Bool { sqlState.hasPrefix("22") || sqlState.hasPrefix("23") }

    /// The line of the COPY data the server's context names (`COPY t, line 3…`), 1-based.
    var copyLine: Int? {
        guard context.hasPrefix("COPY "), let range = context.firstRange(of: ", line ") else { return nil }
        return Int(context[range.upperBound...].prefix { $0.isNumber })
    }

    /// Whether another transaction holds a lock the run waited for too long (`55P03`) or a
    /// deadlock was broken (`40P01`).
    var isBusy: Bool { sqlState == "55P03" || sqlState == "40P01" }

    var description: String { message }
}
