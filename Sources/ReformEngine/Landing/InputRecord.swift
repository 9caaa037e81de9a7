public import ReformSDK

/// Where a record came from: the file, the line and byte offset where it starts, and its index.
public struct RecordPosition: Sendable, Hashable, CustomStringConvertible {
    /// The input path as the user gave it (`-` for standard input).
    public var path: String
    /// The 1-based line on which the record starts.
    public var line: Int
    /// The 0-based byte offset from the start of the input at which the record starts.
    public var offset: Int
    /// The 0-based index of the record among the records of the input (blank lines do not count).
    public var index: Int

    /// A position with every field given.
    public init(path: String, line: Int, offset: Int, index: Int) {
        self.path = path
        self.line = line
        self.offset = offset
        self.index = index
    }

    /// `path:line`, as editors accept it.
    public var description: String { "\(path):\(line)" }
}

/// One record read from an input: a value, or the reason its text could not be parsed.
///
/// A bad record is not fatal: the reader carries on with the next one, so the engine can send
/// this one to the dead-letter output with its position and error.
public struct InputRecord: Sendable {
    /// Where the record starts.
    public var position: RecordPosition
    /// The parsed value, or the parse error located in the input's own lines and columns.
    public var payload: Result<Value, JSONError>
    /// Whether the value is what a compiled chain prefix made of the line (``NDJSONReader/lineReformer``),
    /// not the line's record.
    var reformed = false

    /// A record at `position` with the given payload.
    public init(position: RecordPosition, payload: Result<Value, JSONError>) {
        self.position = position
        self.payload = payload
    }
}
