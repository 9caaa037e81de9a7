/// The top-level members of an object document that a consumer needs, so the parser can build only
/// those (see ``JSONParser/parse(_:keeping:)``).
public struct JSONProjection: Sendable, Hashable {
    /// The member keys to build, in no particular order.
    public let keys: [String]
    let prints: [KeyPrint]

    /// A projection keeping the members named `keys`.
    public init(keys: some Sequence<String>) {
        var unique: [String] = []
        for key in keys where !unique.contains(key) { unique.append(key) }
        self.keys = unique
        prints = unique.map { KeyPrint(decoded: $0) }
    }

    /// Whether the member with this key (and fingerprint) is kept.
    @inline(__always)
    func keeps(_ key: String, _ print: KeyPrint) -> Bool {
        if print.length >= 0 {
            for p in prints where p == print { return true }
            return false
        }
        return keys.contains(key)
    }

    /// Hashes the keys.
    public func hash(into hasher: inout Hasher) { hasher.combine(keys) }

    /// Projections are equal when they keep the same keys in the same order.
    public static func == (lhs: JSONProjection, rhs: JSONProjection) -> Bool { lhs.keys == rhs.keys }
}

extension KeyPrint: @unchecked Sendable {}

extension JSONParser {
    /// Parses one document, building only the top-level members `projection` keeps when the
    /// document is an object.
    ///
    /// Every other member is checked exactly as ``parse(_:)`` checks it (grammar, escapes, UTF-8,
    /// nesting depth) but not built, which is most of the cost of parsing a record whose consumer
    /// reads a few of its fields. A document that is not an object is parsed in full. A kept key
    /// that repeats keeps its first position and takes the last value, as in ``parse(_:)``.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer, keeping projection: JSONProjection) throws(JSONError) -> Value {
        var s = try makeScanner(bytes)
        s.skipWhitespace()
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: "{") else {
            let value = try parseValue(&s)
            s.skipWhitespace()
            if s.pos < s.end { throw s.error("expected end of input after the value", found: true) }
            return value
        }
        s.pos += 1
        s.skipWhitespace()
        var object = Object(minimumCapacity: projection.keys.count)
        if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "}") {
            s.pos += 1
        } else {
            let outerLimit = limits.maximumDepth
            limits.maximumDepth = max(0, outerLimit - 1)
            defer { limits.maximumDepth = outerLimit }
            if outerLimit < 1 { try checkDepth(&s, 0) }
            while true {
                let (key, print) = try parseKey(&s)
                if projection.keeps(key, print) {
                    object[key] = try parseValue(&s)
                } else {
                    try skipValue(&s)
                }
                s.skipWhitespace()
                guard s.pos < s.end else { throw s.error("expected ',' or '}' after an object member", found: true) }
                let c = s.base[s.pos]
                if c == UInt8(ascii: ",") {
                    s.pos += 1
                    s.skipWhitespace()
                } else if c == UInt8(ascii: "}") {
                    s.pos += 1
                    break
                } else {
                    throw s.error("expected ',' or '}' after an object member", found: true)
                }
            }
        }
        s.skipWhitespace()
        if s.pos < s.end { throw s.error("expected end of input after the value", found: true) }
        return .object(object)
    }

    /// Checks one value at the cursor and moves past it without building anything.
    mutating func skipValue(_ s: inout Scanner) throws(JSONError) {
        // Open containers, innermost last: true for an object.
        var open: [Bool] = []
        nextValue: while true {
            guard s.pos < s.end else { throw s.error("expected a value", found: true) }
            switch s.base[s.pos] {
            case UInt8(ascii: "\""):
                try skipString(&s)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = s.base[s.pos] == UInt8(ascii: "{")
                s.pos += 1
                s.skipWhitespace()
                if s.pos < s.end, s.base[s.pos] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    s.pos += 1
                } else {
                    try checkDepth(&s, open.count)
                    open.append(isObject)
                    if isObject { try skipKey(&s) }
                    continue nextValue
                }
            case UInt8(ascii: "t"): try s.expectLiteral("true")
            case UInt8(ascii: "f"): try s.expectLiteral("false")
            case UInt8(ascii: "n"): try s.expectLiteral("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try parseNumber(&s)
            default: throw s.error("expected a value", found: true)
            }
            while let isObject = open.last {
                s.skipWhitespace()
                guard s.pos < s.end else {
                    throw s.error(isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element", found: true)
                }
                let c = s.base[s.pos]
                if c == UInt8(ascii: ",") {
                    s.pos += 1
                    s.skipWhitespace()
                    if isObject { try skipKey(&s) }
                    continue nextValue
                } else if c == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    s.pos += 1
                    open.removeLast()
                } else {
                    throw s.error(isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element", found: true)
                }
            }
            return
        }
    }

    /// Checks `"key"`, the `:` and the whitespace before the value, building nothing.
    private mutating func skipKey(_ s: inout Scanner) throws(JSONError) {
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: "\"") else { throw s.error("expected a string key", found: true) }
        try skipString(&s)
        s.skipWhitespace()
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: ":") else { throw s.error("expected ':' after an object key", found: true) }
        s.pos += 1
        s.skipWhitespace()
    }

    /// Checks the string at the cursor (escapes, control characters, UTF-8) and moves past it.
    private mutating func skipString(_ s: inout Scanner) throws(JSONError) {
        let start = s.pos + 1
        var i = s.firstSpecialStringByte(from: start)
        while true {
            guard i < s.end else {
                throw JSONError(code: .syntax, message: "unterminated string", location: s.location(of: start - 1), offset: start - 1)
            }
            let c = s.base[i]
            if c == UInt8(ascii: "\"") {
                s.pos = i + 1
                return
            } else if c == UInt8(ascii: "\\") {
                scratch.removeAll(keepingCapacity: true)  // the decoded text is not kept
                i = try parseEscape(&s, at: i)
            } else if c < 0x20 {
                s.pos = i
                throw s.error("control character \(hexByte(c, prefix: "U+00")) must be escaped in a string")
            } else if c >= 0x80 {
                i += try s.validateUTF8Sequence(at: i)
            } else {
                i += 1
            }
            i = s.firstSpecialStringByte(from: i)
        }
    }
}
