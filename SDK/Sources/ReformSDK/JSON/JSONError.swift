/// Why a JSON document was rejected, with the place it went wrong as a compiler would show it.
///
/// ``line`` and ``column`` are 1-based; the column counts UTF-8 bytes from the start of the line.
/// ``offset`` is the 0-based byte offset from the start of the input. The description reads
/// `line:column: message`, and the message says what the parser expected there.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem the parser met.
    public enum Code: Sendable, Hashable {
        /// The bytes do not follow the JSON grammar.
        case syntax
        /// A string holds bytes that are not valid UTF-8.
        case encoding
        /// Containers nest deeper than ``JSONLimits/maximumDepth``.
        case tooDeep
        /// The document is larger than ``JSONLimits/maximumDocumentSize``.
        case tooLarge
    }

    /// What kind of problem this is.
    public let code: Code
    /// What was expected, or what went wrong, in words.
    public let message: String
    /// The 1-based line of the offending byte.
    public let line: Int
    /// The 1-based column of the offending byte, counted in UTF-8 bytes.
    public let column: Int
    /// The 0-based byte offset of the offending byte from the start of the input.
    public let offset: Int

    /// An error with every field given.
    public init(code: Code, message: String, line: Int, column: Int, offset: Int) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// `line:column: message`.
    public var description: String { "\(line):\(column): \(message)" }

    /// The same error placed in an enclosing input in which the parsed bytes began at the given
    /// 1-based `line` and `column` and 0-based byte `offset` (a line of an NDJSON file, say).
    public func relocated(documentLine: Int, documentColumn: Int, documentOffset: Int) -> JSONError {
        JSONError(
            code: code,
            message: message,
            line: documentLine + line - 1,
            column: line == 1 ? documentColumn + column - 1 : column,
            offset: documentOffset + offset
        )
    }
}
