/// A table to read records from, written `sqlite:PATH#TABLE` or `postgres://…/DB#TABLE`
/// (`postgres:URL#TABLE` for any libpq URL or keyword string) (`reform cat`, `reform run --input`).
///
/// `#TABLE` may be left out when the database holds one table.
package struct TableAddress: Sendable, Equatable, CustomStringConvertible {
    /// What every SQLite table address starts with.
    package static let scheme = "sqlite:"
    /// What every PostgreSQL table address starts with.
    package static let postgresScheme = "postgres:"

    /// SQLite or PostgreSQL.
    package let engine: TablePlan.Engine
    /// The database file, or the PostgreSQL connection string (secrets included).
    package let database: String
    /// The table; `nil`: the database's only table.
    package let table: String?

    /// The address `text` spells, or `nil` when it does not start with `sqlite:` or `postgres:`
    /// (`postgresql:` too) (a file path).
    package init?(_ text: String) {
        let rest: Substring
        if text.hasPrefix(TableAddress.scheme) {
            engine = .sqlite
            rest = text.dropFirst(TableAddress.scheme.count)
        } else if let scheme = ["postgres:", "postgresql:"].first(where: { text.hasPrefix($0) }) {
            engine = .postgres
            // `postgres://host/db` is itself a URL; `postgres:postgresql://…` and
            // `postgres:host=… dbname=…` name one after the prefix.
            rest = text.hasPrefix(scheme + "//") ? text[...] : text.dropFirst(scheme.count)
        } else {
            return nil
        }
        let text = String(rest)
        // A `#` inside a password (`postgres://u:S3cr#t@host/db`) is the password's, not `#TABLE`.
        if let hash = text.lastIndex(of: "#"),
            engine == .sqlite || !PostgresURL.secretRanges(in: text).contains(where: { $0.contains(hash) })
        {
            database = String(text[..<hash])
            let name = text[text.index(after: hash)...]
            table = name.isEmpty ? nil : String(name)
        } else {
            database = text
            table = nil
        }
    }

    /// The database for messages: the file, or the URL with its secrets hidden.
    package var databaseName: String {
        engine == .sqlite ? database : PostgresURL(database).displayName
    }

    /// `sqlite:PATH#TABLE` or `postgres:URL#TABLE`, as written, with the URL's secrets hidden.
    package var description: String {
        let prefix: String
        switch engine {
        case .sqlite: prefix = TableAddress.scheme
        case .postgres: prefix = database.contains("://") ? "" : TableAddress.postgresScheme
        }
        return prefix + databaseName + (table.map { "#" + $0 } ?? "")
    }
}
