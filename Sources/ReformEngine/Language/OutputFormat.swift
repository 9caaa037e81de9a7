/// The shapes `reform run --format` can write records in.
///
/// Parse user text with ``init(parsing:)``, which explains the choices when the text is not one of
/// them, then make a writer with `makeWriter(columns:output:colour:maxWidth:title:)`.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// One compact JSON record per line (`jq -c`), streamed.
    case ndjson
    /// A JSON array of records pretty-printed like `jq .`, streamed.
    case json
    /// Aligned columns for a terminal; buffered until the last record.
    case table
    /// RFC 4180 comma-separated values with a header line and LF line ends, streamed.
    case csv
    /// A GitHub-flavoured Markdown pipe table, streamed.
    case markdown
    /// A standalone HTML page holding one table, with the row styles in its stylesheet; streamed.
    case html

    /// The format named `text` (case-insensitive); throws an error listing the choices otherwise.
    public init(parsing text: String) throws(OutputFormatError) {
        let lowered = text.lowercased()
        if let format = OutputFormat(rawValue: lowered) {
            self = format
            return
        }
        throw OutputFormatError(text: text, suggestion: OutputFormat.closest(to: lowered))
    }

    /// Other names people use for a format, offered as suggestions (never accepted silently).
    private static let knownAliases: [String: OutputFormat] = [
        "jsonl": .ndjson, "jsonlines": .ndjson, "ldjson": .ndjson, "md": .markdown, "text": .table, "htm": .html, "web": .html,
    ]

    /// A known alias of `text`, or the format whose name starts with `text` or is within two edits.
    private static func closest(to text: String) -> OutputFormat? {
        if let alias = knownAliases[text] { return alias }
        guard !text.isEmpty else { return nil }
        let typed = Array(text.utf8)
        var best: (format: OutputFormat, distance: Int)?
        for format in allCases {
            let name = Array(format.rawValue.utf8)
            let distance = name.starts(with: typed) ? 0 : editDistance(typed, name)
            if distance <= 2, distance < best?.distance ?? .max { best = (format, distance) }
        }
        return best?.format
    }

    /// Levenshtein distance between two short byte strings.
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
