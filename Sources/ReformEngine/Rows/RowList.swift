public import ReformSDK

/// A ``RowContext`` that keeps the rows records give it, then writes them in the shape's order.
///
/// A shape without a sort column keeps rows only until the next ``write(to:)``. A sorted shape
/// keeps them until the end: up to a memory budget in memory, the rest sorted in runs in a
/// temporary file (`ExternalSort`), merged as they are written.
///
/// ```swift
/// var list = RowList(shape: shape)
/// for item in items { try item.giveData(to: &list) }   // items: [any RowModel]
/// try list.write(to: &writer)
/// ```
public struct RowList: RowContext {
    /// The shape every row has.
    public let shape: RowShape
    /// A shape without a sort column: the rows since the last write, in the order they came.
    private var arrived: [Row] = []
    /// A sorted shape: the rows so far.
    private var sort: ExternalSort<Row>?
    /// The rows kept and not written yet.
    public var count: Int { sort?.count ?? arrived.count }
    /// The origin the next row is given (``Row/origin``): set by a watched run before each record
    /// gives its data, so that a row written says which record filled it.
    var nextOrigin: Origin?
    /// Told each row as it is written, with its origin (a watched run's rows, ``RunWatch``).
    var rowWritten: (@Sendable (Row) -> Void)?

    /// An empty list of rows of `shape`; a sorted shape keeps about `memoryBudget` bytes of rows
    /// in memory and spills the rest to an unlinked temporary file in `TMPDIR` (or `/tmp`).
    public init(shape: RowShape, memoryBudget: Int = SortMemory.defaultBytes) {
        self.shape = shape
        if shape.sortColumn != nil {
            sort = ExternalSort(budget: memoryBudget, descending: shape.descending, context: shape)
        }
    }

    /// Lets `model` fill a new row, in its own style, and keeps it.
    ///
    /// Throws the model's rejection, or a `RecordError` whose code is `sort-spill-failed` when
    /// rows could not be spilled to the temporary file (a failure of the whole list, not the row).
    public mutating func getData<Model: RowModel>(_ model: Model) throws(RecordError) {
        var row = Row(shape: shape)
        row.style = model.rowStyle
        if let nextOrigin { row.origin = nextOrigin }
        try model.fill(&row)
        if let column = shape.sortColumn {
            do { try sort?.append(row, key: row.values[column]) } catch { throw error.recordError }
        } else {
            arrived.append(row)
        }
    }

    /// Writes the rows kept so far through `writer` (without finishing it) and forgets them:
    /// sorted by the shape's sort column (stable: ties keep their order; numbers before text,
    /// empty values last; see `sort` steps), or in arrival order when it has none. Write a sorted
    /// shape's rows once, after the last row.
    public mutating func write(to writer: inout some RecordWriter) throws(OutputError) {
        if var sort {
            self.sort = nil
            defer { self.sort = ExternalSort(budget: sort.budget, descending: shape.descending, context: shape) }
            let rows = sort.sorted()
            while true {
                let next: Row?
                do { next = try rows.next() } catch { throw OutputError(path: "sorted rows", message: error.message) }
                guard let row = next else { return }
                try writer.write(cells: row.cells, of: shape, style: row.style)
                rowWritten?(row)
            }
        }
        for row in arrived {
            try writer.write(cells: row.cells, of: shape, style: row.style)
            rowWritten?(row)
        }
        arrived.removeAll()
    }
}
