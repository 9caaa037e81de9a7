/// The canonical string a `sign` interceptor signs: literal text with placeholders filled from the
/// request exactly as it is sent.
///
/// | placeholder | value |
/// |---|---|
/// | `{method}` | the method, upper case (`GET`) |
/// | `{path}` | the path as sent, the base URL's own path included, still percent-encoded (`/v1/items`) |
/// | `{query}` | the query as sent, each name and value percent-encoded (RFC 3986: only `A-Z a-z 0-9 - . _ ~` kept), pairs sorted by name then value, joined by `&`; empty when none |
/// | `{body}` | the body as UTF-8 text; empty when none |
/// | `{body_sha256}` | the SHA-256 of the body bytes in lower-case hex (of no bytes when there is no body) |
/// | `{timestamp}` | the unix time in whole seconds, taken once per attempt |
/// | `{header:NAME}` | the value of header `NAME` as sent (credentials included); empty when absent |
///
/// `{{` and `}}` write a literal brace. Newlines come from the YAML string (`"…\n…"` or a `|` block).
public struct SigningMessage: Sendable, Hashable, CustomStringConvertible {
    /// One piece of the template.
    public enum Part: Sendable, Hashable {
        /// Text written as it is.
        case text(String)
        /// `{method}`.
        case method
        /// `{path}`.
        case path
        /// `{query}`.
        case query
        /// `{body}`.
        case body
        /// `{body_sha256}`.
        case bodySHA256
        /// `{timestamp}`.
        case timestamp
        /// `{header:NAME}`.
        case header(String)
    }

    /// The placeholder names, for messages and suggestions (`header:NAME` takes a header name).
    public static let placeholders = ["method", "path", "query", "body", "body_sha256", "timestamp", "header:NAME"]

    /// The pieces, in order.
    public let parts: [Part]
    /// The template as written.
    public let description: String

    /// Parses `text`; throws naming the first unknown or unclosed placeholder.
    public init(parsing text: String) throws(SigningMessageError) {
        description = text
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let char = rest.first {
            rest = rest.dropFirst()
            if char == "}" {
                guard rest.first == "}" else {
                    throw SigningMessageError("a lone '}' in the message; write '}}' for a literal brace")
                }
                rest = rest.dropFirst()
                literal.append("}")
                continue
            }
            guard char == "{" else {
                literal.append(char)
                continue
            }
            if rest.first == "{" {
                rest = rest.dropFirst()
                literal.append("{")
                continue
            }
            guard let close = rest.firstIndex(of: "}") else {
                throw SigningMessageError("'{' is not closed in the message; write '{{' for a literal brace")
            }
            let name = String(rest[..<close])
            rest = rest[rest.index(after: close)...]
            if !literal.isEmpty { parts.append(.text(literal)) }
            literal = ""
            parts.append(try Self.part(named: name))
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
    }

    private static func part(named name: String) throws(SigningMessageError) -> Part {
        switch name {
        case "method": return .method
        case "path": return .path
        case "query": return .query
        case "body": return .body
        case "body_sha256": return .bodySHA256
        case "timestamp": return .timestamp
        default:
            if name.hasPrefix("header:") {
                let header = String(name.dropFirst(7))
                guard !header.isEmpty, header.allSatisfy(Self.isTokenCharacter) else {
                    throw SigningMessageError("'{\(name)}' does not name a header; write it as {header:Content-Type}")
                }
                return .header(header)
            }
            let names = placeholders.map { $0 == "header:NAME" ? "header" : $0 }
            throw SigningMessageError(
                "unknown placeholder '{\(name)}' in the message" + Suggestions.hint(for: name, in: names)
                    + " (expected: " + placeholders.map { "{\($0)}" }.joined(separator: ", ") + ")")
        }
    }

    /// Whether `char` may appear in a header name (RFC 9110 token).
    static func isTokenCharacter(_ char: Character) -> Bool {
        guard let ascii = char.asciiValue, ascii > 32, ascii < 127 else { return false }
        return !"\"(),/:;<=>?@[\\]{}".contains(char)
    }

    /// Whether the message signs `{timestamp}`.
    public var usesTimestamp: Bool { parts.contains(.timestamp) }
}

/// A signing message that does not parse.
public struct SigningMessageError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and how to write it instead.
    public let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
