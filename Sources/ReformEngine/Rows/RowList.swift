public import ReformSDK

/// A ``RowContext`` that keeps the rows records give it, then writes them in the shape's order.
///
/// ```swift
/// var list = RowList(shape: shape)
/// for item in items { try item.giveData(to: &list) }   // items: [any RowModel]
/// try list.write(to: &writer)
/// ```
public struct RowList: RowContext {
    /// The shape every row has.
    public let shape: RowShape
    /// The rows in the order they came.
    public private(set) var rows: [Row] = []

    /// An empty list of rows of `shape`.
    public init(shape: RowShape) {
        self.shape = shape
    }

    /// Lets `model` fill a new row, in its own style, and keeps it.
    public mutating func getData<Model: RowModel>(_ model: Model) throws(RecordError) {
        var row = Row(shape: shape)
        row.style = model.rowStyle
        try model.fill(&row)
        rows.append(row)
    }

    /// The rows sorted by the shape's sort column (stable: ties keep their order; numbers before
    /// text, empty values last; see `sort` steps), or in arrival order when it has none.
    public func sorted() -> [Row] {
        guard let column = shape.sortColumn else { return rows }
        return rows.indices.sorted { a, b in
            ValueOrder.precedes(rows[a].values[column], rows[b].values[column], descending: shape.descending) ?? (a < b)
        }.map { rows[$0] }
    }

    /// Writes the rows, sorted, through `writer` (without finishing it), and forgets them.
    public mutating func write(to writer: inout some RecordWriter) throws(OutputError) {
        for row in sorted() { try writer.write(cells: row.cells, of: shape, style: row.style) }
        rows.removeAll()
    }
}
