/// A 1-based line and column in a source file (columns count Unicode scalars, as editors do).
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 1-based line.
    public let line: Int
    /// The 1-based column.
    public let column: Int

    /// A location at `line` and `column`, both 1-based.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    /// Orders by line, then column.
    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
