public import ReformSDK

/// A string template over a record: `"{name} ({address.city})"`.
///
/// `{path}` inserts the value at a path (strings as they are, numbers and bools as JSON writes
/// them); `{path?}` inserts nothing when the value is missing or null instead of rejecting the
/// record; `{{` and `}}` are literal braces.
public struct Template: Sendable, CustomStringConvertible {
    enum Part: Sendable {
        case literal(String)
        case field(ValuePath, optional: Bool)
    }

    let parts: [Part]
    /// The template as written.
    public let description: String

    /// The paths the template reads, in order.
    public var paths: [ValuePath] {
        parts.compactMap { if case .field(let p, _) = $0 { return p } else { return nil } }
    }

    private init(parts: [Part], description: String) {
        self.parts = parts
        self.description = description
    }

    /// The same template with each field's first key replaced by `rename(key)` where that is not nil.
    public func renamingFirstKeys(_ rename: (String) -> String?) -> Template {
        Template(
            parts: parts.map { part in
                guard case .field(let path, let optional) = part, case .key(let first)? = path.components.first,
                    let new = rename(first)
                else { return part }
                return .field(ValuePath([.key(new)] + path.components.dropFirst()), optional: optional)
            },
            description: description)
    }

    /// Parses a template; the error's column is 1-based within `text`.
    public init(parsing text: String) throws(ValuePathError) {
        description = text
        var parts: [Part] = []
        var literal = ""
        var chars = Array(text.unicodeScalars)[...]
        var column = 1
        while let c = chars.first {
            chars = chars.dropFirst()
            column += 1
            if c == "{" {
                if chars.first == "{" {
                    literal.unicodeScalars.append("{")
                    chars = chars.dropFirst()
                    column += 1
                    continue
                }
                let start = column - 1
                guard let close = chars.firstIndex(of: "}") else {
                    throw ValuePathError(column: start, message: "'{' is not closed; write '{{' for a literal brace")
                }
                var inner = String(String.UnicodeScalarView(chars[chars.startIndex..<close]))
                column += inner.unicodeScalars.count + 1
                chars = chars[(close + 1)...]
                var optional = false
                if inner.hasSuffix("?") {
                    optional = true
                    inner.removeLast()
                }
                guard !inner.isEmpty else {
                    throw ValuePathError(column: start, message: "empty placeholder '{}'; name a field, as in '{name}'")
                }
                let path: ValuePath
                do { path = try ValuePath(parsing: inner) } catch {
                    throw ValuePathError(column: start + error.column, message: error.message)
                }
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(.field(path, optional: optional))
            } else if c == "}" {
                guard chars.first == "}" else {
                    throw ValuePathError(column: column - 1, message: "'}' without '{'; write '}}' for a literal brace")
                }
                chars = chars.dropFirst()
                column += 1
                literal.unicodeScalars.append("}")
            } else {
                literal.unicodeScalars.append(c)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    /// Renders the template over `record`; a missing or null non-optional field rejects the record.
    public func render(_ record: Value) throws(RecordError) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let s):
                out += s
            case .field(let path, let optional):
                let value = record[path: path] ?? .null
                if value.isNull {
                    if optional { continue }
                    throw RecordError(
                        code: "missing-field",
                        message: "template '\(description)' needs '\(path)', which is missing or null; "
                            + "write '{\(path)?}' to allow that")
                }
                out += value.plainText
            }
        }
        return out
    }
}

extension Value {
    /// The value as text in a cell or template: strings as they are, null empty, others as JSON
    /// (the rule of `CellText`).
    public var plainText: String {
        if case .string(let s) = self { return s }
        var bytes: [UInt8] = []
        CellText.append(self, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
