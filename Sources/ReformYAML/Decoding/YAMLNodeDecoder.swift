import ReformSDK

/// Decodes `Decodable` types from loaded YAML (or JSON) nodes, keeping document order and
/// locations: a mapping's keys come in the order they were written (`allKeys`), and a failure's
/// coding path leads back to a line and column with ``YAMLNode/location(of:)``.
///
/// Scalars are typed as the core schema reads them: `12` is a number, `"12"` text. A plain number
/// asked for as text is its text as written (`version: 1.0` is `"1.0"`), as YAML authors expect.
///
/// ```swift
/// let node = try YAMLLoader().load(text, file: "spec.yaml")[0]
/// let spec = try YAMLNodeDecoder().decode(Spec.self, from: node)
/// ```
public struct YAMLNodeDecoder: Sendable {
    /// A decoder.
    public init() {}

    /// Decodes a `T` from `node`; throws `DecodingError`s whose coding path leads into `node`.
    public func decode<T: Decodable>(_ type: T.Type, from node: YAMLNode) throws -> T {
        try T(from: NodeDecoding(node: node, codingPath: []))
    }
}

extension YAMLNode {
    /// Where the node a coding path leads to starts: the deepest node the path reaches (a key
    /// missing from a mapping leaves the mapping's location).
    public func location(of codingPath: [any CodingKey]) -> SourceLocation {
        var node = self
        for key in codingPath {
            switch node.content {
            case .mapping(let pairs):
                guard let pair = pairs.first(where: { $0.key.keyText == key.stringValue }) else { return node.location }
                node = pair.value
            case .sequence(let elements):
                guard let index = key.intValue, elements.indices.contains(index) else { return node.location }
                node = elements[index]
            case .scalar:
                return node.location
            }
        }
        return node.location
    }

    /// A mapping key's text (`nil` for a key that is itself a collection).
    fileprivate var keyText: String? {
        if case .scalar(let scalar) = content { return scalar.text }
        return nil
    }
}

/// An index as a coding key (sequence elements).
private struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String
    init(_ index: Int) {
        intValue = index
        stringValue = String(index)
    }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.init(intValue) }
}

private struct NodeDecoding: Decoder {
    let node: YAMLNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .mapping(let pairs) = node.content else { throw mismatch([String: Any].self, node, codingPath) }
        return KeyedDecodingContainer(MappingContainer<Key>(pairs: pairs, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .sequence(let elements) = node.content else { throw mismatch([Any].self, node, codingPath) }
        return SequenceContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ScalarContainer(node: node, codingPath: codingPath)
    }
}

private func mismatch(_ type: Any.Type, _ node: YAMLNode, _ path: [any CodingKey]) -> DecodingError {
    let found =
        switch node.content {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar(let scalar): scalar.value.isNull ? "null" : "'\(scalar.text)'"
        }
    return DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(describe(type)), found \(found)"))
}

private func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "text"
    case is Bool.Type: "true or false"
    case is Double.Type, is Float.Type: "a number"
    case is any FixedWidthInteger.Type: "a whole number"
    case is [String: Any].Type: "a mapping"
    case is [Any].Type: "a list"
    default: "\(type)"
    }
}

private struct MappingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let pairs: [YAMLPair]
    let node: YAMLNode
    let codingPath: [any CodingKey]

    var allKeys: [Key] { pairs.compactMap { $0.key.keyText.flatMap(Key.init(stringValue:)) } }

    func contains(_ key: Key) -> Bool { value(key) != nil }

    private func value(_ key: Key) -> YAMLNode? { pairs.first { $0.key.keyText == key.stringValue }?.value }

    private func required(_ key: Key) throws -> YAMLNode {
        guard let value = value(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "'\(key.stringValue)' is missing"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard case .scalar(let scalar) = try required(key).content else { return false }
        return scalar.value.isNull
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: NodeDecoding(node: try required(key), codingPath: codingPath + [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try NodeDecoding(node: try required(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoding(node: try required(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { NodeDecoding(node: node, codingPath: codingPath) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoding(node: try required(key), codingPath: codingPath + [key])
    }
}

private struct SequenceContainer: UnkeyedDecodingContainer {
    let elements: [YAMLNode]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [YAMLNode], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> NodeDecoding {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "the list has no more elements"))
        }
        defer { currentIndex += 1 }
        return NodeDecoding(node: elements[currentIndex], codingPath: codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .scalar(let scalar) = elements[currentIndex].content, scalar.value.isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: try next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct ScalarContainer: SingleValueDecodingContainer {
    let node: YAMLNode
    let codingPath: [any CodingKey]

    private func scalar<T>(_ type: T.Type) throws -> YAMLScalar {
        guard case .scalar(let scalar) = node.content else { throw mismatch(type, node, codingPath) }
        return scalar
    }

    func decodeNil() -> Bool {
        if case .scalar(let scalar) = node.content { return scalar.value.isNull }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = try scalar(type).value else { throw mismatch(type, node, codingPath) }
        return b
    }

    func decode(_ type: String.Type) throws -> String {
        let scalar = try scalar(type)
        switch scalar.value {
        case .string(let s): return s
        case .int, .double: return scalar.text
        default: throw mismatch(type, node, codingPath)
        }
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch try scalar(type).value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: throw mismatch(type, node, codingPath)
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let integer = type as? any FixedWidthInteger.Type, let value = try decodeInteger(integer) as? T { return value }
        return try T(from: NodeDecoding(node: node, codingPath: codingPath))
    }

    private func decodeInteger<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let value: I?
        switch try scalar(type).value {
        case .int(let i): value = I(exactly: i)
        case .double(let d): value = d.rounded() == d ? I(exactly: d) : nil
        default: value = nil
        }
        guard let value else { throw mismatch(type, node, codingPath) }
        return value
    }

    // The fixed-width integers each go through one generic path.
    func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(type) }
}
