import ReformSDK

extension Row: Spillable {
    func spill(into writer: inout SpillWriter) {
        writer.string(style.emphasis?.rawValue ?? "")
        writer.string(style.colour?.rawValue ?? "")
        for value in values { writer.value(value) }
        for cell in cells { writer.value(cell) }
    }

    init(unspilling reader: inout SpillReader, context shape: RowShape) throws(SpillError) {
        let style = RowStyle(
            emphasis: RowStyle.Emphasis(rawValue: try reader.string()), colour: RowStyle.Colour(rawValue: try reader.string()))
        var values: [Value] = []
        var cells: [Value] = []
        values.reserveCapacity(shape.columns.count)
        cells.reserveCapacity(shape.columns.count)
        for _ in shape.columns { values.append(try reader.value()) }
        for _ in shape.columns { cells.append(try reader.value()) }
        self.init(shape: shape, values: values, cells: cells, style: style)
    }

    var estimatedBytes: Int {
        values.reduce(120) { $0 + $1.estimatedBytes } + cells.reduce(0) { $0 + $1.estimatedBytes }
    }
}
