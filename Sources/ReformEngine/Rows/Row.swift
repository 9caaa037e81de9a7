public import ReformSDK

/// One row of a ``RowShape`` while a record fills it: each column's value as given (what rows sort
/// by) and as written (after the column's format), and the row's style.
public struct Row: Sendable {
    /// The shape this row has.
    public let shape: RowShape
    /// Each column's value as the record gave it, in column order; `null` where it gave none.
    public private(set) var values: [Value]
    /// Each column's value as rendered (formatted), in column order.
    public private(set) var cells: [Value]
    /// How the row stands out.
    public var style: RowStyle = .plain
    /// Where the record that filled it came from, when the run is watched (``RunWatch``): a
    /// row's provenance in `reform studio`; `nil` otherwise.
    public internal(set) var origin: Origin? {
        get { provenance?.origin }
        set { provenance = newValue.map(Provenance.init) }
    }
    /// ``origin``, boxed: a row that is not watched (most) pays one reference for it.
    private var provenance: Provenance?

    private final class Provenance: Sendable {
        let origin: Origin
        init(_ origin: Origin) { self.origin = origin }
    }

    /// An empty row of `shape`.
    public init(shape: RowShape) {
        self.shape = shape
        values = Array(repeating: .null, count: shape.columns.count)
        cells = values
    }

    /// A row of `shape` with these values, cells and style (read back from a sort's spill file).
    init(shape: RowShape, values: [Value], cells: [Value], style: RowStyle, origin: Origin? = nil) {
        self.shape = shape
        self.values = values
        self.cells = cells
        self.style = style
        provenance = origin.map(Provenance.init)
    }

    /// Sets the column called `column`, written with `format` (or the column's own format).
    ///
    /// Throws when the shape has no such column, or the format cannot read the value.
    public mutating func set(_ column: String, _ value: Value, format: ValueFormat? = nil) throws(RecordError) {
        guard let index = shape.index(of: column) else {
            throw RecordError(
                code: "unknown-column",
                message: "the row shape has no column '\(column)' (its columns: \(shape.columns.map(\.name).joined(separator: ", ")))")
        }
        try set(at: index, value, format: format)
    }

    /// Sets the column at `index` (a position in ``RowShape/columns``), written with `format` (or
    /// the column's own format).
    public mutating func set(at index: Int, _ value: Value, format: ValueFormat? = nil) throws(RecordError) {
        values[index] = value
        guard let format = format ?? shape.columns[index].format else {
            cells[index] = value
            return
        }
        do { cells[index] = try format.apply(value) } catch {
            throw RecordError(code: error.code, message: "column '\(shape.columns[index].name)': \(error.message)")
        }
    }

    /// The rendered row as an object: one member per column, named after it.
    public var rendered: Value { shape.object(cells) }
}
