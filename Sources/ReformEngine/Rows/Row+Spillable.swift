import ReformSDK

extension Row: Spillable {
    func spill(into writer: inout SpillWriter) {
        writer.string(style.emphasis?.rawValue ?? "")
        writer.string(style.colour?.rawValue ?? "")
        for value in values { writer.value(value) }
        for cell in cells { writer.value(cell) }
        // A watched run's rows keep their origin through the spill file.
        writer.value(.bool(origin != nil))
        if let origin {
            writer.int(origin.manager.index)
            writer.string(origin.manager.name)
            writer.int(origin.sequence)
            writer.int(origin.line)
            writer.int(origin.page)
        }
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
        var origin: Origin?
        if try reader.value() == .bool(true) {
            let manager = ManagerRef(index: try reader.int(), name: try reader.string())
            origin = Origin(manager: manager, sequence: try reader.int(), line: try reader.int(), page: try reader.int())
        }
        self.init(shape: shape, values: values, cells: cells, style: style, origin: origin)
    }

    var estimatedBytes: Int {
        values.reduce(120) { $0 + $1.estimatedBytes } + cells.reduce(0) { $0 + $1.estimatedBytes }
    }
}
