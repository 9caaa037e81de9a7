import ReformSDK

/// Where the record a byte range's source landed last starts in its file, so that a reformer
/// step's dead letter names it as the input stage's do (`big.ndjson@183406`): lines in a range
/// count from the range's start, not the file's, so `PATH:LINE` would point at another line.
struct RangePosition {
    /// The range read.
    let range: InputRange
    /// The landed record's line, counted from the range's start (its ``Origin/line``).
    let line: Int
    /// The byte offset in the file at which that line starts.
    let offset: Int

    /// `PATH@OFFSET` for a record of the line landed last; for a record of an earlier line (one
    /// a plugin held back), its line in the range: `PATH@START:END line N`.
    func describe(_ origin: Origin) -> String {
        origin.line == line ? "\(range.path)@\(offset)" : "\(range.path)@\(range.start):\(range.end) line \(origin.line)"
    }
}
