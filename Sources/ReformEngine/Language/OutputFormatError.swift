/// The text given for `--format` names no ``OutputFormat``.
///
/// Its ``description`` reads like `unknown output format 'cvs'; did you mean 'csv'? Choose one of:
/// ndjson, json, table, csv, markdown`.
public struct OutputFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text as the user typed it.
    public let text: String
    /// A format whose name is close to ``text``, when there is one.
    public let suggestion: OutputFormat?

    /// What was wrong, a suggestion when one is close, and every choice.
    public var description: String {
        let choices = OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
        let hint = suggestion.map { "; did you mean '\($0.rawValue)'? Choose" } ?? "; choose"
        return "unknown output format '\(text)'\(hint) one of: \(choices)"
    }
}
