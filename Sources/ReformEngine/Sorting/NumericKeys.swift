import ReformSDK

/// Whether a sort's keys, all of them, can be compared as numbers' bits (``RadixOrder``) instead
/// of as `Value`s: while every key is an integer or null they order as integers, while every key
/// is a number a double holds exactly (or null) as doubles. ``SortOrder`` decides that for the
/// lines of one run; the merge of all the runs needs it for every key of the sort, so the sort
/// notes each key as it comes.
struct NumericKeys: Sendable {
    /// Whether every key noted is an integer or null.
    private(set) var allIntegers = true
    /// Whether every key noted is null or a number that a double holds exactly (not NaN).
    private(set) var allExactNumbers = true

    /// How keys compare as numbers.
    enum Order {
        /// As integers (every key is an integer or null).
        case integers
        /// As doubles (every key is a number a double holds exactly, or null).
        case doubles
    }

    /// How the keys noted so far compare as numbers, or `nil` when some must compare as values.
    var order: Order? { allIntegers ? .integers : allExactNumbers ? .doubles : nil }

    /// Counts `key` in.
    @inline(__always)
    mutating func note(_ key: Value) {
        switch key {
        case .null: break
        case .int(let v): if v.magnitude > SortOrder.exactDoubleLimit { allExactNumbers = false }
        case .double(let v):
            allIntegers = false
            if v.isNaN { allExactNumbers = false }
        default:
            allIntegers = false
            allExactNumbers = false
        }
    }

    /// Counts every key `other` noted in.
    mutating func note(_ other: NumericKeys) {
        allIntegers = allIntegers && other.allIntegers
        allExactNumbers = allExactNumbers && other.allExactNumbers
    }

    /// `key`'s bits in `order`, which order as ``ValueOrder`` orders the keys (larger first
    /// when `descending`: the bits are inverted); `nil` for null, which goes last either way.
    @inline(__always)
    static func bits(of key: Value, in order: Order, descending: Bool) -> UInt64? {
        let bits: UInt64
        switch (key, order) {
        case (.int(let v), .integers): bits = RadixOrder.bits(of: v)
        case (.int(let v), .doubles): bits = RadixOrder.bits(of: Double(v))
        case (.double(let v), .doubles): bits = RadixOrder.bits(of: v)
        default: return nil
        }
        return descending ? ~bits : bits
    }
}
