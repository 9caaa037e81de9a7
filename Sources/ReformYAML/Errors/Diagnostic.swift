/// One problem found in a source file, printed like a compiler does:
///
/// ```
/// pipeline.yaml:12:5: error: unknown key 'pagin'; did you mean 'paging'?
///     pagin: { policy: page }
///     ^
/// ```
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// How serious the problem is.
    public enum Severity: String, Sendable, Hashable {
        /// The file cannot be used.
        case error
        /// The file works, but probably not as meant.
        case warning
        /// More about the diagnostic before it.
        case note
    }

    /// The file as the user named it.
    public let file: String
    /// Where in the file.
    public let location: SourceLocation
    /// How serious.
    public let severity: Severity
    /// What is wrong and how to fix it.
    public let message: String

    /// A diagnostic at `location` in `file`.
    public init(file: String, location: SourceLocation, severity: Severity = .error, message: String) {
        self.file = file
        self.location = location
        self.severity = severity
        self.message = message
    }

    /// `file:line:column: severity: message`, the first line of ``rendered(source:)``.
    public var description: String {
        "\(file):\(location.line):\(location.column): \(severity.rawValue): \(message)"
    }

    /// The description followed by the offending source line and a caret under the column.
    ///
    /// `source` is the whole file's text; when it is `nil` or the line is out of range only the
    /// first line is returned.
    public func rendered(source: String?) -> String {
        guard let source, location.line >= 1 else { return description }
        var lineNumber = 1
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            if lineNumber == location.line {
                let text = line.hasSuffix("\r") ? line.dropLast() : line
                let prefix = text.unicodeScalars.prefix(max(0, location.column - 1))
                let pad = String(prefix.map { $0 == "\t" ? "\t" : " " })
                return "\(description)\n\(text)\n\(pad)^"
            }
            lineNumber += 1
        }
        return description
    }
}

/// Several diagnostics from one or more files, reported together (every error, not only the first).
public struct DiagnosticList: Error, Sendable, CustomStringConvertible {
    /// The diagnostics in file and source order.
    public let diagnostics: [Diagnostic]

    /// A list holding `diagnostics`, sorted by file, line and column.
    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics.sorted { ($0.file, $0.location) < ($1.file, $1.location) }
    }

    /// One diagnostic per line.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
