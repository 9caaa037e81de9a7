import ReformSDK

/// A `filter` condition compiled against a ``CompiledChain``'s slots, so that a record's test
/// reads slot texts instead of building values: `and`/`or`/`not` are branches, a path alone is a
/// look at its text's first byte, and a comparison of a slot with a literal decides on the text
/// where the text alone can (`true`, `false`, `null`, ASCII strings for `==`/`!=`) and parses only
/// that slot's value otherwise, comparing it through ``Condition/compare(_:_:_:)`` as the general
/// path does. Any other part of the condition (nested paths, lists, two paths) is evaluated as
/// values, with the same code.
indirect enum SlotCondition {
    case and(SlotCondition, SlotCondition)
    case or(SlotCondition, SlotCondition)
    case not(SlotCondition)
    /// A path alone: true unless missing (`nil` slot), null or false.
    case truthy(slot: Int?)
    /// `slot op literal`; `text` is the literal as the writer prints it.
    case compare(slot: Int?, Condition.Operator, literal: Value, text: [UInt8])
    /// `slot op literal` for a number literal that is `number` exactly and an equality or
    /// ordering: a slot holding a plain decimal number is compared as a number without being parsed.
    case compareNumber(slot: Int, Condition.Operator, number: Double, literal: Value)
    /// The rest, evaluated as values; `lookups` resolve its paths to slots.
    case values(Condition.Node, lookups: [CompiledChain.Lookup])

    /// `condition` compiled, its paths resolved by `lookups`.
    init(_ condition: Condition, lookups: [CompiledChain.Lookup]) {
        self.init(condition.root, lookups: lookups)
    }

    private init(_ node: Condition.Node, lookups: [CompiledChain.Lookup]) {
        /// The slot a path reads whole (missing: `.some(nil)`), or `nil` when the path reads inside it.
        func wholeSlot(_ path: ValuePath) -> Int?? {
            guard let lookup = lookups.first(where: { $0.path == path }), lookup.rest.isIdentity else { return nil }
            return .some(lookup.slot)
        }
        switch node {
        case .and(let a, let b): self = .and(SlotCondition(a, lookups: lookups), SlotCondition(b, lookups: lookups))
        case .or(let a, let b): self = .or(SlotCondition(a, lookups: lookups), SlotCondition(b, lookups: lookups))
        case .not(let a): self = .not(SlotCondition(a, lookups: lookups))
        case .path(let path):
            if let slot = wholeSlot(path) {
                self = .truthy(slot: slot)
            } else {
                self = .values(node, lookups: lookups)
            }
        case .compare(.path(let path), let op, .literal(let literal)):
            if let slot = wholeSlot(path), let slot, let number = SlotCondition.exactNumber(literal, op) {
                self = .compareNumber(slot: slot, op, number: number, literal: literal)
            } else if let slot = wholeSlot(path) {
                var text: [UInt8] = []
                JSON.write(literal, into: &text)
                self = .compare(slot: slot, op, literal: literal, text: text)
            } else {
                self = .values(node, lookups: lookups)
            }
        case .compare(.literal(let literal), let op, .path(let path)):
            if let flipped = SlotCondition.flipped(op), let slot = wholeSlot(path), let slot,
                let number = SlotCondition.exactNumber(literal, flipped)
            {
                self = .compareNumber(slot: slot, flipped, number: number, literal: literal)
            } else if let flipped = SlotCondition.flipped(op), let slot = wholeSlot(path) {
                var text: [UInt8] = []
                JSON.write(literal, into: &text)
                self = .compare(slot: slot, flipped, literal: literal, text: text)
            } else {
                self = .values(node, lookups: lookups)
            }
        default:
            self = .values(node, lookups: lookups)
        }
    }

    /// The operator that gives the same answer with its operands swapped, for the orderings and
    /// equalities.
    private static func flipped(_ op: Condition.Operator) -> Condition.Operator? {
        switch op {
        case .equal, .notEqual: op
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .in, .contains, .startswith, .endswith: nil
        }
    }

    /// What a slot's text alone says about `text op literal`, or `nil` when its value must be
    /// parsed. The text is as the writer prints the value, so `true`, `false` and `null` are
    /// those bytes exactly, and two ASCII strings are equal exactly when their texts are (Swift
    /// compares non-ASCII strings by canonical equivalence: those are parsed).
    static func decide(_ text: UnsafeRawBufferPointer, _ op: Condition.Operator, literal: Value, literalText: [UInt8]) -> Bool? {
        guard op == .equal || op == .notEqual, let first = text.first else { return nil }
        let equalTexts = text.elementsEqual(literalText)
        switch literal {
        case .bool, .null:
            return equalTexts == (op == .equal)
        case .string:
            // A value of another kind never equals a string.
            guard first == UInt8(ascii: "\"") else { return op == .notEqual }
            guard text.allSatisfy({ $0 < 0x80 }), literalText.allSatisfy({ $0 < 0x80 }) else { return nil }
            return equalTexts == (op == .equal)
        default:
            return nil
        }
    }

    /// The literal as a double that compares with a slot's number exactly as
    /// ``Condition/compare(_:_:_:)`` compares the two values, for an equality or ordering; `nil`
    /// otherwise (an integer beyond 2^53, another operator).
    private static func exactNumber(_ literal: Value, _ op: Condition.Operator) -> Double? {
        switch op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: break
        case .in, .contains, .startswith, .endswith: return nil
        }
        switch literal {
        case .int(let v) where v.magnitude <= 1 << 53: return Double(v)
        case .double(let v) where v.isFinite: return v
        default: return nil
        }
    }

    /// The number a slot's text is when it is a plain decimal (`-`, digits, an optional fraction,
    /// no exponent) of up to 15 digits in all; `nil` otherwise. Such a number is an integer of at
    /// most 15 digits divided by a power of ten of at most 15, both exact as doubles, so one
    /// division gives the correctly rounded double the JSON parser reads from the text (Clinger's
    /// fast path) and comparing it is comparing the parsed value.
    static func plainNumber(_ text: UnsafeRawBufferPointer) -> Double? {
        var i = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { i = 1 }
        var mantissa = 0
        var digits = 0
        var point: Int? = nil
        while i < text.count {
            let byte = text[i]
            i += 1
            if byte == UInt8(ascii: "."), point == nil, digits > 0 {
                point = digits
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            mantissa = mantissa * 10 + Int(digit)
            digits += 1
            guard digits <= 15 else { return nil }
        }
        let fractionDigits = point.map { digits - $0 } ?? 0
        guard digits >= 1, point == nil || fractionDigits > 0 else { return nil }
        let magnitude = Double(mantissa) / SlotCondition.powersOfTen[fractionDigits]
        return negative ? -magnitude : magnitude
    }

    /// 10^0 through 10^15, each exact as a double.
    private static let powersOfTen: [Double] = (0...15).map { power in (0..<power).reduce(1.0) { product, _ in product * 10 } }

    /// `value op number` for the operators ``exactNumber(_:_:)`` takes.
    static func compare(_ value: Double, _ op: Condition.Operator, _ number: Double) -> Bool {
        switch op {
        case .equal: value == number
        case .notEqual: value != number
        case .less: value < number
        case .lessOrEqual: value <= number
        case .greater: value > number
        case .greaterOrEqual: value >= number
        case .in, .contains, .startswith, .endswith: false
        }
    }

    /// Whether a path alone whose value has this text is true (not null or false).
    static func truthy(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let first = text.first else { return false }
        return first != UInt8(ascii: "n") && first != UInt8(ascii: "f")
    }
}
