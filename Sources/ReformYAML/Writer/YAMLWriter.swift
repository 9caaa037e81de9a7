public import ReformSDK

/// Writes ``Value``s as block-style YAML 1.2 that ``YAMLLoader`` reads back to the same value.
///
/// Mappings and sequences nest by two spaces, empty ones are written `{}` and `[]`; strings stay
/// plain unless they would read back as something else (`"true"`, `"123"`, `"null"`, `""`) or
/// contain YAML syntax, and multi-line strings become literal blocks (`|`) or, when a block
/// cannot hold them exactly, double-quoted strings with escapes.
///
/// ```swift
/// let text = YAMLWriter().string(from: ["name": "reform", "tags": ["a", "b"]])
/// // name: reform
/// // tags:
/// //   - a
/// //   - b
/// ```
public struct YAMLWriter: Sendable {
    /// A writer.
    public init() {}

    /// `value` as a YAML document, ending with a newline.
    public func string(from value: Value) -> String {
        var output = ""
        write(value, to: &output)
        return output
    }

    /// `values` as a stream of documents, each introduced by `---`.
    public func string(fromDocuments values: some Sequence<Value>) -> String {
        var output = ""
        for value in values {
            output += "---\n"
            write(value, to: &output)
        }
        return output
    }

    /// Appends `value` as a YAML document, ending with a newline, to `output`.
    public func write(_ value: Value, to output: inout String) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            writeSequence(elements, indent: 0, to: &output)
        case .object(let object) where !object.isEmpty:
            writeMapping(object, indent: 0, to: &output)
        default:
            output += scalar(value, indent: 0)
            output += "\n"
        }
    }

    /// `value` on one line in flow style (`{ id: 1, tags: [a, b] }`), as a value after a key or
    /// in a list: strings plain where that reads back the same, double-quoted otherwise (line
    /// breaks escaped), so hand-written-looking YAML can be generated.
    public func flow(_ value: Value) -> String {
        switch value {
        case .array(let elements): "[" + elements.map(flow).joined(separator: ", ") + "]"
        case .object(let object) where object.isEmpty: "{}"
        case .object(let object):
            "{ " + object.members.map { flowString($0.key) + ": " + flow($0.value) }.joined(separator: ", ") + " }"
        case .string(let s): flowString(s)
        default: scalar(value, indent: 0)
        }
    }

    /// A string in flow context, where `,[]{}` end a plain scalar.
    private func flowString(_ s: String) -> String {
        ScalarStyle.isPlainSafe(s) && !s.contains(where: { ",[]{}".contains($0) }) ? s : ScalarStyle.doubleQuoted(s)
    }

    /// Writes a non-empty sequence whose dashes sit `indent` spaces in; the first line is not indented
    /// (the caller has placed the cursor).
    private func writeSequence(_ elements: [Value], indent: Int, to output: inout String) {
        let pad = String(repeating: " ", count: indent)
        for (position, element) in elements.enumerated() {
            if position > 0 { output += pad }
            output += "- "
            switch element {
            case .array(let nested) where !nested.isEmpty:
                writeSequence(nested, indent: indent + 2, to: &output)
            case .object(let nested) where !nested.isEmpty:
                writeMapping(nested, indent: indent + 2, to: &output)
            default:
                output += scalar(element, indent: indent + 2)
                output += "\n"
            }
        }
    }

    /// Writes a non-empty mapping whose keys sit `indent` spaces in; the first line is not indented.
    private func writeMapping(_ object: Object, indent: Int, to output: inout String) {
        let pad = String(repeating: " ", count: indent)
        for (position, member) in object.members.enumerated() {
            if position > 0 { output += pad }
            let key = ScalarStyle.key(member.key)
            // libyaml reads implicit keys of up to 1024 characters; longer ones need `? `.
            if key.utf8.count > 1000 {
                output += "? \(key)\n\(pad):"
            } else {
                output += "\(key):"
            }
            switch member.value {
            case .array(let nested) where !nested.isEmpty:
                output += "\n" + pad + "  "
                writeSequence(nested, indent: indent + 2, to: &output)
            case .object(let nested) where !nested.isEmpty:
                output += "\n" + pad + "  "
                writeMapping(nested, indent: indent + 2, to: &output)
            default:
                output += " " + scalar(member.value, indent: indent + 2)
                output += "\n"
            }
        }
    }

    /// A scalar or empty collection; block scalars indent their lines by `indent`.
    private func scalar(_ value: Value, indent: Int) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): ScalarStyle.double(d)
        case .string(let s): ScalarStyle.string(s, indent: indent)
        case .array: "[]"
        case .object: "{}"
        }
    }
}
