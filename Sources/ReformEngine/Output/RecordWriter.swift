public import ReformSDK

/// Writes records, one at a time, into an ``OutputFile`` in one ``OutputFormat``.
///
/// Call ``write(_:style:)`` for each record, then ``finish()`` once; the caller then commits the
/// output (or abandons it if anything failed). Streaming writers append each record to the output
/// buffer as it arrives; the table writer keeps its first rows to size its columns, then streams.
public protocol RecordWriter {
    /// Writes one record, shown with `style` where the format can show it.
    mutating func write(_ record: Value, style: RowStyle) throws(OutputError)
    /// Writes one rendered row: `cells` fill the writer's columns in order (the writer was made
    /// with a row shape's ``RowShape/outputColumns``). The default builds the row's object.
    mutating func write(cells: [Value], of shape: RowShape, style: RowStyle) throws(OutputError)
    /// Writes whatever closes the output (a closing bracket, a buffered table); call it exactly once.
    mutating func finish() throws(OutputError)
}

extension RecordWriter {
    /// Writes the row as an object named by the shape's columns.
    public mutating func write(cells: [Value], of shape: RowShape, style: RowStyle) throws(OutputError) {
        try write(shape.object(cells), style: style)
    }

    /// Writes one record in the ``RowStyle/plain`` style.
    public mutating func write(_ record: Value) throws(OutputError) {
        try write(record, style: .plain)
    }
}
