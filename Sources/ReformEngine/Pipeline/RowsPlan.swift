public import ReformSDK
public import ReformYAML

/// One row shape that records from several managers render into, each manager by its own rules
/// (seeds/000–003): which field fills which column, the row's style, how values are written.
public struct RowsPlan: Sendable {
    /// One column of the row shape.
    public struct Column: Sendable, Equatable {
        /// The column's heading, and its name in per-manager rules.
        public let header: String
        /// The record key that fills it unless a manager says otherwise (a declared constant after
        /// keyed reformers).
        public let key: String
        /// How the column writes its values, unless a manager gives its own format.
        public let format: ValueFormat?
    }

    /// One manager's rules: where its records' columns come from, its style, its formats.
    public struct ManagerRules: Sendable {
        /// The path that fills each column, by column position; `nil` takes the column's ``Column/key``.
        public let sources: [ValuePath?]
        /// The format of each column, by position; `nil` takes the column's ``Column/format``.
        public let formats: [ValueFormat?]
        /// How this manager's rows stand out.
        public let style: RowStyle
    }

    /// The shape's name.
    public let name: String
    /// Columns in order.
    public let columns: [Column]
    /// The position of the column rows are sorted by (stable: ties keep their order), if any.
    public let sortColumn: Int?
    /// Whether the sort is descending.
    public let descending: Bool
    /// Rules per manager index; managers not listed fill each column from its key, plainly.
    public let managers: [Int: ManagerRules]
    /// Where the shape is declared.
    public let location: SourceLocation
    /// Styles that depend on a record's values (`style_when: { "state == 'open'": highlight }`):
    /// the first condition that holds gives the row's style, over its manager's.
    public var styleWhen: [(condition: Condition, style: RowStyle)] = []

    /// The row shape records render into (column names and formats, the sort).
    public var shape: RowShape {
        var shape = RowShape(columns: columns.map { RowShape.Column($0.header, format: $0.format) })
        shape.sortColumn = sortColumn
        shape.descending = descending
        return shape
    }
}
