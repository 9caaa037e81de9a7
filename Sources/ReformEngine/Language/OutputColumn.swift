/// One output column: the record key that fills it, and the name it is shown under.
///
/// With an explicit column list every format writes only those keys, in that order, under their
/// headers (JSON formats use the header as the member name). A record without the key gets `null`
/// (JSON formats) or an empty cell.
public struct OutputColumn: Sendable, Hashable {
    /// The name shown in the header row, or the member name in JSON output.
    public var header: String
    /// The top-level record key whose value fills the column.
    public var key: String

    /// A column filled from `key` and shown under `header`.
    public init(header: String, key: String) {
        self.header = header
        self.key = key
    }

    /// A column filled from `key` and shown under the same name.
    public init(key: String) {
        self.init(header: key, key: key)
    }
}
