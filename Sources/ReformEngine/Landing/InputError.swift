/// An input could not be opened or read, or is damaged as a whole (a malformed record is an
/// ``InputRecord`` instead).
public struct InputError: Error, Sendable, CustomStringConvertible {
    /// The input path as the user gave it.
    public let path: String
    /// What failed, with the system's reason.
    public let message: String
    /// The 1-based line of the damage, when it is at a place in the file.
    public let line: Int?
    /// The 1-based column (in bytes) of the damage, when it is at a place in the file.
    public let column: Int?

    /// An error for `path`, at `line` and `column` when given.
    public init(path: String, message: String, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }

    /// `path: message`, or `path:line:column: message` when located.
    public var description: String {
        if let line, let column { return "\(path):\(line):\(column): \(message)" }
        return "\(path): \(message)"
    }
}
