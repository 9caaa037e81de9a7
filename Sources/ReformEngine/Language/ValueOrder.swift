import ReformSDK

/// The order `sort` steps and row shapes put values in: numbers, then strings, then other kinds,
/// each by value; missing and `null` last in either direction.
enum ValueOrder {
    /// Whether `a` goes before `b`, or `nil` when they tie (callers keep arrival order: stable).
    static func precedes(_ a: Value, _ b: Value, descending: Bool) -> Bool? {
        let aNull = a.isNull
        let bNull = b.isNull
        if aNull != bNull { return bNull }
        if aNull { return nil }
        if let order = Condition.ordering(a, b) {
            return order == 0 ? nil : (descending ? order > 0 : order < 0)
        }
        let ra = rank(a)
        let rb = rank(b)
        return ra == rb ? nil : (descending ? ra > rb : ra < rb)
    }

    private static func rank(_ v: Value) -> Int {
        switch v {
        case .int, .double: 0
        case .string: 1
        case .bool: 2
        case .array: 3
        case .object: 4
        case .null: 5
        }
    }
}
