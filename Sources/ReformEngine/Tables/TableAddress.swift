/// A table to read records from, written `sqlite:PATH#TABLE` (`reform cat`, `reform run --input`).
///
/// `#TABLE` may be left out when the database holds one table.
package struct TableAddress: Sendable, Equatable, CustomStringConvertible {
    /// What every table address starts with.
    package static let scheme = "sqlite:"

    /// The database file.
    package let database: String
    /// The table; `nil`: the database's only table.
    package let table: String?

    /// The address `text` spells, or `nil` when it does not start with `sqlite:` (a file path).
    package init?(_ text: String) {
        guard text.hasPrefix(TableAddress.scheme) else { return nil }
        let rest = text.dropFirst(TableAddress.scheme.count)
        if let hash = rest.lastIndex(of: "#") {
            database = String(rest[..<hash])
            let name = rest[rest.index(after: hash)...]
            table = name.isEmpty ? nil : String(name)
        } else {
            database = String(rest)
            table = nil
        }
    }

    /// `sqlite:PATH#TABLE`, as written.
    package var description: String { TableAddress.scheme + database + (table.map { "#" + $0 } ?? "") }
}
