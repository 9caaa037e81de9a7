/// A path into a value: object keys and array indexes, written `data.list`, `items[0].id` or `.`.
///
/// A key that contains a dot or a bracket is written in quotes: `meta."content.type"`.
@frozen
public struct ValuePath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    @frozen
    public enum Component: Sendable, Hashable {
        /// The member with this key.
        case key(String)
        /// The element at this index; negative indexes count from the end.
        case index(Int)
    }

    /// The steps in order; empty means the value itself.
    public let components: [Component]
    /// The path as written.
    public let description: String

    /// Parses a path; throws ``ValuePathError`` with the column of the first bad character.
    public init(parsing text: String) throws(ValuePathError) {
        description = text
        components = try ValuePath.parse(Array(text.utf8))
    }

    /// A path made of the given components.
    public init(_ components: [Component]) {
        self.components = components
        description = components.enumerated().map { offset, component in
            switch component {
            case .key(let k): offset == 0 ? k : "." + k
            case .index(let i): "[\(i)]"
            }
        }.joined()
    }

    /// Whether the path names the value itself.
    @inlinable
    public var isIdentity: Bool { components.isEmpty }

    /// The first key, when the path starts with a key (the field a record path reads).
    @inlinable
    public var firstKey: String? {
        if case .key(let k)? = components.first { return k }
        return nil
    }

    private static func parse(_ bytes: [UInt8]) throws(ValuePathError) -> [Component] {
        var result: [Component] = []
        var i = 0
        if bytes == [UInt8(ascii: ".")] || bytes.isEmpty { return [] }
        var expectKey = true
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "[") {
                var j = i + 1
                var negative = false
                if j < bytes.count, bytes[j] == UInt8(ascii: "-") {
                    negative = true
                    j += 1
                }
                var number = 0
                let digitsStart = j
                while j < bytes.count, bytes[j] >= 48, bytes[j] <= 57 {
                    let (m, o1) = number.multipliedReportingOverflow(by: 10)
                    let (a, o2) = m.addingReportingOverflow(Int(bytes[j] - 48))
                    if o1 || o2 { throw ValuePathError(column: i + 1, message: "index is too large") }
                    number = a
                    j += 1
                }
                guard j > digitsStart, j < bytes.count, bytes[j] == UInt8(ascii: "]") else {
                    throw ValuePathError(column: i + 1, message: "expected an index like [0] or [-1]")
                }
                result.append(.index(negative ? -number : number))
                i = j + 1
                expectKey = false
            } else if c == UInt8(ascii: ".") {
                if expectKey && !result.isEmpty {
                    throw ValuePathError(column: i + 1, message: "empty key between dots")
                }
                if i == 0 {
                    i += 1
                    continue
                }  // a leading dot, as in jq: `.data.list`
                i += 1
                expectKey = true
                guard i < bytes.count else {
                    throw ValuePathError(column: i, message: "path ends with a dot")
                }
            } else if c == UInt8(ascii: "\"") {
                var j = i + 1
                var key: [UInt8] = []
                while j < bytes.count, bytes[j] != UInt8(ascii: "\"") {
                    if bytes[j] == UInt8(ascii: "\\"), j + 1 < bytes.count { j += 1 }
                    key.append(bytes[j])
                    j += 1
                }
                guard j < bytes.count else {
                    throw ValuePathError(column: i + 1, message: "unterminated quoted key")
                }
                result.append(.key(String(decoding: key, as: UTF8.self)))
                i = j + 1
                expectKey = false
            } else {
                if !expectKey {
                    throw ValuePathError(column: i + 1, message: "expected '.' or '[' between path steps")
                }
                var j = i
                while j < bytes.count, bytes[j] != UInt8(ascii: "."), bytes[j] != UInt8(ascii: "[") { j += 1 }
                result.append(.key(String(decoding: bytes[i..<j], as: UTF8.self)))
                i = j
                expectKey = false
            }
        }
        return result
    }
}

/// Why a path could not be parsed, with the 1-based column in the path text.
public struct ValuePathError: Error, Sendable, Equatable {
    /// The 1-based column of the offending character in the path text.
    public let column: Int
    /// What was expected there.
    public let message: String

    /// An error at the 1-based `column` of the text, saying what was expected there.
    public init(column: Int, message: String) {
        self.column = column
        self.message = message
    }
}

extension Value {
    /// The value at `path`, or `nil` when a step is missing or meets the wrong kind of value.
    @inlinable
    public subscript(path path: ValuePath) -> Value? {
        Value.follow(path.components[...], from: self)
    }

    /// Follows `components` from `start`; `nil` when a step is missing or meets the wrong kind.
    @inlinable
    public static func follow(_ components: ArraySlice<ValuePath.Component>, from start: Value) -> Value? {
        var current = start
        for component in components {
            switch (component, current) {
            case (.key(let key), .object(let object)):
                guard let next = object[key] else { return nil }
                current = next
            case (.index(let i), .array(let array)):
                let at = i < 0 ? array.count + i : i
                guard array.indices.contains(at) else { return nil }
                current = array[at]
            default:
                return nil
            }
        }
        return current
    }
}

extension Object {
    /// The value at `path` inside this object, or `nil` when a step is missing.
    @inlinable
    public subscript(path path: ValuePath) -> Value? {
        let components = path.components
        guard let first = components.first else { return .object(self) }
        guard case .key(let key) = first, let head = self[key] else { return nil }
        if components.count == 1 { return head }
        return Value.follow(components.dropFirst(), from: head)
    }
}
