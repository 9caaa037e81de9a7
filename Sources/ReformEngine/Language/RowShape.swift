public import ReformSDK

/// The one row shape that records of several kinds render into: named columns, each with an
/// optional ``ValueFormat``, and the column rows sort by.
public struct RowShape: Sendable {
    /// One column of the shape.
    public struct Column: Sendable, Hashable {
        /// The column's name, shown as its heading.
        public var name: String
        /// How the column writes its values, unless a record gives its own format.
        public var format: ValueFormat?

        /// A column called `name`, written with `format`.
        public init(_ name: String, format: ValueFormat? = nil) {
            self.name = name
            self.format = format
        }
    }

    /// The columns in order.
    public var columns: [Column]
    /// The position of the column rows sort by (stable: ties keep their order); `nil` keeps arrival order.
    public var sortColumn: Int?
    /// Whether the sort is descending.
    public var descending: Bool

    /// A shape with these columns, sorted by the column called `sortedBy` when given.
    public init(columns: [Column], sortedBy: String? = nil, descending: Bool = false) {
        self.columns = columns
        sortColumn = sortedBy.flatMap { name in columns.firstIndex { $0.name == name } }
        self.descending = descending
    }

    /// The position of the column called `name`.
    public func index(of name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }

    /// A row's cells (in column order) as an object whose members are named after the columns.
    public func object(_ cells: [Value]) -> Value {
        var object = Object(minimumCapacity: cells.count)
        for (column, cell) in zip(columns, cells) { object.appendNew(key: column.name, value: cell) }
        return .object(object)
    }

    /// The output columns a writer needs for rendered rows (members named after the columns).
    public var outputColumns: [OutputColumn] {
        columns.map { OutputColumn(key: $0.name) }
    }
}
