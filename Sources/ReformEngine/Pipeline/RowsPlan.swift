import ReformSDK
public import ReformYAML

/// One row shape that records from several managers render into (seeds/000–003).
public struct RowsPlan: Sendable {
    /// One column of the row shape.
    public struct Column: Sendable, Equatable {
        /// The column's heading.
        public let header: String
        /// The record key that fills it (a declared constant after keyed reformers).
        public let key: String
    }

    /// The shape's name.
    public let name: String
    /// Columns in order.
    public let columns: [Column]
    /// The key rows are sorted by (stable: ties keep their order), if any.
    public let sortKey: String?
    /// Whether the sort is descending.
    public let descending: Bool
    /// Row style per manager index; managers not listed are plain.
    public let styles: [Int: RowStyle]
    /// Where the shape is declared.
    public let location: SourceLocation
}
