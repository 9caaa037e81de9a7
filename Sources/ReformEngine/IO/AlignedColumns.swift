/// Rows of text cells as lines with their columns aligned, for what commands print as a plain
/// table (`reform state show`, `reform show`): each cell padded to its column's widest, two spaces
/// between columns, the last column not padded.
enum AlignedColumns {
    /// The lines of `rows` (the first usually the header), each after `indent` and ending in a
    /// line break. Widths count characters, as a terminal shows most text.
    static func text(_ rows: [[String]], indent: String = "") -> String {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        var out = ""
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            out += indent + cells.joined(separator: "  ") + "\n"
        }
        return out
    }
}
