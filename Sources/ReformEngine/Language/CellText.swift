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
}
