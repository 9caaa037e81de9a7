import ReformHTTP1
public import ReformSDK

/// A request body written as a template (`body: { json: … }` or `body: { form: … }`, and the body
/// a `graphql:` manager sends): literal values, with `{name}` placeholders that take a parameter,
/// the paging token or page number, or the incremental cursor when each request is built.
///
/// A string that is exactly `{name}` is replaced by the value itself, keeping its type (a number
/// stays a number; a value not given yet, such as the cursor of the first page, is `null`). A
/// placeholder inside longer text puts the value's text there (nothing when not given). Only
/// names the manager knows are placeholders: other braces (a GraphQL selection such as
/// `{ login }`) are sent as written.
public struct BodyTemplate: Sendable {
    /// One part of the template.
    public indirect enum Part: Sendable {
        /// A value sent as written.
        case literal(Value)
        /// A string that is exactly `{name}`: the named value, typed.
        case placeholder(String)
        /// Text with placeholders inside: literal pieces and names, in order.
        case text([TextPiece])
        /// An array of parts.
        case array([Part])
        /// An object of parts, in the template's key order.
        case object([(key: String, part: Part)])
    }

    /// A piece of a ``Part/text(_:)``.
    public enum TextPiece: Sendable, Equatable {
        /// Text sent as written.
        case literal(String)
        /// The named value's text.
        case name(String)
    }

    /// How the body is encoded: JSON, or a form of its top-level keys.
    public let encoding: BodyEncoding
    /// The template.
    public let root: Part
    /// The names its placeholders use.
    public let names: Set<String>

    /// A template of `value` for `encoding`, where `{name}` is a placeholder when `known` holds
    /// `name`; `literalKeys` are top-level keys whose text is never searched (a GraphQL query).
    public init(_ value: Value, encoding: BodyEncoding, known: Set<String>, literalKeys: Set<String> = []) {
        self.encoding = encoding
        var names: Set<String> = []
        func part(_ value: Value, literal: Bool) -> Part {
            switch value {
            case .string(let text) where !literal && text.utf8.contains(UInt8(ascii: "{")):
                let pieces = BodyTemplate.pieces(of: text, known: known)
                for case .name(let name) in pieces { names.insert(name) }
                if pieces.count == 1, case .name(let name) = pieces[0] { return .placeholder(name) }
                return pieces.contains { if case .name = $0 { true } else { false } } ? .text(pieces) : .literal(value)
            case .array(let items):
                return .array(items.map { part($0, literal: literal) })
            case .object(let object):
                return .object(object.members.map { ($0.key, part($0.value, literal: literal)) })
            default:
                return .literal(value)
            }
        }
        if case .object(let object) = value {
            root = .object(object.members.map { ($0.key, part($0.value, literal: literalKeys.contains($0.key))) })
        } else {
            root = part(value, literal: false)
        }
        self.names = names
    }

    /// `text` split at the `{name}` placeholders whose name is `known`.
    static func pieces(of text: String, known: Set<String>) -> [TextPiece] {
        var pieces: [TextPiece] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), known.contains(String(after[..<close])) {
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = ""
                pieces.append(.name(String(after[..<close])))
                rest = after[after.index(after: close)...]
            } else {
                literal += "{"
                rest = after
            }
        }
        literal += rest
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }

    /// Names written as `{name}` in `value`'s strings that look like placeholders but are not
    /// `known` (a likely typo), skipping `literalKeys` at the top level.
    public static func unknownNames(in value: Value, known: Set<String>, literalKeys: Set<String> = []) -> [String] {
        var found: [String] = []
        func scan(_ value: Value) {
            switch value {
            case .string(let text):
                for piece in pieces(of: text, known: []) {
                    guard case .literal(let piece) = piece else { continue }
                    var rest = Substring(piece)
                    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                        let name = rest[rest.index(after: open)..<close]
                        if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !known.contains(String(name)) {
                            found.append(String(name))
                        }
                        rest = rest[rest.index(after: close)...]
                    }
                }
            case .array(let items): items.forEach(scan)
            case .object(let object):
                for member in object.members where !literalKeys.contains(member.key) { scan(member.value) }
            default: break
            }
        }
        if case .object(let object) = value {
            for member in object.members where !literalKeys.contains(member.key) { scan(member.value) }
        } else {
            scan(value)
        }
        return found
    }

    /// The body for `values`, with its content type.
    public func render(_ values: [String: Value]) -> (body: [UInt8], contentType: String) {
        switch encoding {
        case .json:
            return (Array(JSON.compactString(value(of: root, values)).utf8), "application/json")
        case .form:
            var fields: [String] = []
            if case .object(let members) = root {
                for (key, part) in members {
                    let value = value(of: part, values)
                    if value.isNull { continue }  // a placeholder not given: the field is left out
                    fields.append("\(PercentEncoding.encode(key))=\(PercentEncoding.encode(value.plainText))")
                }
            }
            return (Array(fields.joined(separator: "&").utf8), "application/x-www-form-urlencoded")
        }
    }

    private func value(of part: Part, _ values: [String: Value]) -> Value {
        switch part {
        case .literal(let value): return value
        case .placeholder(let name): return values[name] ?? .null
        case .text(let pieces):
            var text = ""
            for piece in pieces {
                switch piece {
                case .literal(let literal): text += literal
                case .name(let name): text += values[name].map { $0.isNull ? "" : $0.plainText } ?? ""
                }
            }
            return .string(text)
        case .array(let parts): return .array(parts.map { value(of: $0, values) })
        case .object(let members):
            var object = Object()
            for (key, part) in members { object[key] = value(of: part, values) }
            return .object(object)
        }
    }

    /// The value a sent `body` holds where the template has the placeholder `{name}` (a
    /// checkpoint's request: the page number it resumes at), if it has one there.
    public func value(named name: String, in body: [UInt8]) -> Value? {
        func find(_ part: Part, _ sent: Value) -> Value? {
            switch (part, sent) {
            case (.placeholder(let found), _) where found == name: return sent
            case (.array(let parts), .array(let items)):
                for (part, item) in zip(parts, items) { if let hit = find(part, item) { return hit } }
            case (.object(let members), .object(let object)):
                for (key, part) in members { if let item = object[key], let hit = find(part, item) { return hit } }
            default: break
            }
            return nil
        }
        switch encoding {
        case .json:
            guard let sent = try? JSON.parse(body) else { return nil }
            return find(root, sent)
        case .form:
            guard case .object(let members) = root else { return nil }
            for (key, part) in members {
                guard case .placeholder(let found) = part, found == name else { continue }
                for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    if PercentEncoding.decode(String(kv[0])) == key {
                        return .string(kv.count > 1 ? PercentEncoding.decode(String(kv[1])) : "")
                    }
                }
            }
            return nil
        }
    }
}
