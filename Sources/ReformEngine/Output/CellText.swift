import ReformSDK

/// How one value reads inside a table, CSV or Markdown cell, before each format's escaping.
///
/// Strings are written as they are, `null` as nothing, numbers and booleans as JSON, and arrays and
/// objects as compact JSON.
enum CellText {
    /// Appends the cell text of `value` to `bytes`.
    static func append(_ value: Value, into bytes: inout [UInt8]) {
        switch value {
        case .null: break
        case .string(let s): appendUTF8(s, into: &bytes)
        default: JSON.write(value, into: &bytes)
        }
    }

    /// Appends the UTF-8 bytes of `text`, in one copy when the string is stored contiguously.
    static func appendUTF8(_ text: String, into bytes: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// The record as an object, or an error naming the format that needs one.
    static func object(
        _ record: Value,
        number: Int,
        format: OutputFormat,
        output: OutputFile
    ) throws(OutputError) -> Object {
        if case .object(let object) = record { return object }
        throw OutputError(
            path: output.displayPath,
            message: "record \(number) is \(article(record.kindName)) \(record.kindName), but \(format.rawValue) "
                + "output needs objects whose keys name the columns; write it with --format ndjson or json"
        )
    }

    private static func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }
}
