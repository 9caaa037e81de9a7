/// A failure PostgreSQL (or libpq) reported: what Reform was doing, then the server's message,
/// with every secret of the connection URL hidden.
struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`: a unique index; `08006`: the connection failed);
    /// empty when libpq failed before the server answered.
    let sqlState: String
    /// What failed, in words.
    let message: String

    /// Whether another transaction holds a lock the run waited for too long (`55P03`) or a
    /// deadlock was broken (`40P01`).
    var isBusy: Bool { sqlState == "55P03" || sqlState == "40P01" }

    var description: String { message }
}
