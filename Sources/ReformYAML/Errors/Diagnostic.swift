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
    /// first line is returned. To render many diagnostics of one file, use
    /// ``render(_:source:limit:)``, which reads the file once.
    public func rendered(source: String?) -> String {
        rendered(lines: source.map(SourceLines.init))
    }

    /// The description followed by line `location.line` of `lines` and a caret.
    public func rendered(lines: SourceLines?) -> String {
        guard let lines, let line = lines[location.line] else { return description }
        let text = line.hasSuffix("\r") ? line.dropLast() : line
        let prefix = text.unicodeScalars.prefix(max(0, location.column - 1))
        let pad = String(prefix.map { $0 == "\t" ? "\t" : " " })
        return "\(description)\n\(text)\n\(pad)^"
    }

    /// How many diagnostics ``render(_:source:limit:)`` shows by default.
    public static let renderLimit = 100

    /// `diagnostics` rendered with their source lines, in one pass over `source`; after `limit`
    /// of them, one line says how many more there are.
    public static func render(_ diagnostics: [Diagnostic], source: String?, limit: Int = renderLimit) -> String {
        let lines = source.map(SourceLines.init)
        var parts = diagnostics.prefix(limit).map { $0.rendered(lines: lines) }
        let errors = diagnostics.dropFirst(limit).filter { $0.severity == .error }.count
        let others = diagnostics.count - limit - errors
        if diagnostics.count > limit {
            let counts = [
                errors > 0 ? "\(errors) more error\(errors == 1 ? "" : "s")" : nil,
                others > 0 ? "\(others) more warning\(others == 1 ? "" : "s") or note\(others == 1 ? "" : "s")" : nil,
            ]
            parts.append("\(diagnostics[limit].file): \(counts.compactMap { $0 }.joined(separator: " and ")) not shown; fix these first")
        }
        return parts.joined(separator: "\n")
    }
}

/// The lines of a source text, found once, so that rendering many diagnostics stays linear.
public struct SourceLines: Sendable {
    private let text: String
    private let starts: [String.Index]

    /// The lines of `text` (split at `\n`).
    public init(_ text: String) {
        self.text = text
        var starts = [text.startIndex]
        var i = text.utf8.startIndex
        while let newline = text.utf8[i...].firstIndex(of: UInt8(ascii: "\n")) {
            i = text.utf8.index(after: newline)
            starts.append(i)
        }
        self.starts = starts
    }

    /// Line `number` (from 1) without its line feed, or nil when out of range.
    public subscript(number: Int) -> Substring? {
        guard number >= 1, number <= starts.count else { return nil }
        let start = starts[number - 1]
        let end = number < starts.count ? text.utf8.index(before: starts[number]) : text.endIndex
        return text[start..<end]
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
