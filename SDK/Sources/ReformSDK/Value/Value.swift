/// One JSON-compatible value: the only shape data takes on its way through Reform.
///
/// Objects keep their keys in insertion order (``Object``). Numbers that were written without a
/// fraction or exponent and fit in 64 bits are ``int``; every other number is ``double``. Two values
/// are equal when they mean the same JSON: `1` equals `1.0`, and objects compare their members
/// regardless of order.
@frozen
public enum Value: Sendable {
    /// JSON `null` (YAML `~`, `null` or empty).
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integral number that fits in 64 bits.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A Unicode string.
    case string(String)
    /// An ordered list of values.
    case array([Value])
    /// String keys to values, in insertion order.
    case object(Object)
}

extension Value {
    /// The name of this value's kind as users read it in error messages (`string`, `object`, …).
    @inlinable
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The string, when this is a string.
    @inlinable
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object, when this is an object.
    @inlinable
    public var objectValue: Object? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an array.
    @inlinable
    public var arrayValue: [Value]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The number as a `Double`, when this is an int or a double.
    @inlinable
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// Whether this is `null`.
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension Value: Equatable {
    /// JSON equality: numbers compare by value across int and double, objects ignore member order.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b && b.isFinite
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }
}

extension Value: Hashable {
    /// Hashes consistently with `==`: integral doubles hash like ints, objects ignore member order.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let b): hasher.combine(b)
        case .int(let i): hasher.combine(Double(i))
        case .double(let d): hasher.combine(d)
        case .string(let s): hasher.combine(s)
        case .array(let a):
            hasher.combine(a.count)
            for element in a { element.hash(into: &hasher) }
        case .object(let o): o.hash(into: &hasher)
        }
    }
}

extension Value: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is JSON `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A literal `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A literal integer.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A literal floating-point number.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A literal string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A literal array.
    public init(arrayLiteral elements: Value...) { self = .array(elements) }
    /// A literal object; keys keep the order written.
    public init(dictionaryLiteral elements: (String, Value)...) {
        var object = Object(minimumCapacity: elements.count)
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
