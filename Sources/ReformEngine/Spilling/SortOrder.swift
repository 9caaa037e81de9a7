import ReformSDK

/// The order ``ValueOrder`` puts sort keys in, ties in arrival order, computed without comparing
/// `Value`s where the keys allow it: keys that are all integers sort as integers, all numbers as
/// doubles, all text as strings; nulls go last in arrival order either way. Anything else (mixed
/// kinds, NaN, integers a double would round) sorts through ``ValueOrder`` itself. Numbers sort
/// as bits that order as they do, a byte at a time (``RadixOrder``).
enum SortOrder {
    /// Positions into `keys`, in the order their keys sort.
    static func positions(of keys: [Value], descending: Bool) -> [Int] {
        if let sorted = numericPositions(of: keys, count: keys.count, descending: descending) { return sorted }
        var nulls: [Int] = []
        guard let strings = column(of: keys, nulls: &nulls, { if case .string(let v) = $0 { v } else { nil } }) else {
            return comparingValues(keys, descending: descending)
        }
        let sorted = positions(strings, descending: descending)
        return nulls.isEmpty ? sorted : sorted + nulls
    }

    /// Positions into the keys of `parts` one after another, in the order they sort, when they
    /// are all integers or all numbers (nulls last, in arrival order), read from the parts as
    /// they are; `nil` for other keys.
    static func numericPositions(ofParts parts: [[Value]], descending: Bool) -> [Int]? {
        numericPositions(of: parts.joined(), count: parts.reduce(0) { $0 + $1.count }, descending: descending)
    }

    /// Positions into the `count` keys, radix-sorted, when they are all integers or all numbers
    /// (nulls last, in arrival order); `nil` for other keys.
    private static func numericPositions(of keys: some Sequence<Value>, count: Int, descending: Bool) -> [Int]? {
        var nulls: [Int] = []
        let sorted: [Int]
        if let ints = numbers(of: keys, count: count, nulls: &nulls, { if case .int(let v) = $0 { RadixOrder.bits(of: v) } else { nil } }) {
            sorted = positions(of: RadixOrder.order(ints, descending: descending), skipping: nulls)
        } else if let doubles = numbers(of: keys, count: count, nulls: &nulls, { exactDouble($0).map(RadixOrder.bits(of:)) }) {
            sorted = positions(of: RadixOrder.order(doubles, descending: descending), skipping: nulls)
        } else {
            return nil
        }
        return nulls.isEmpty ? sorted : sorted + nulls
    }

    /// The largest integer magnitude a double holds exactly: up to it, comparing as doubles is
    /// comparing as integers (``Condition/ordering(_:_:)`` mixes the two through doubles).
    static let exactDoubleLimit: UInt64 = 1 << 53

    /// A number as a double that orders as ``Condition/ordering(_:_:)`` does, or `nil`.
    private static func exactDouble(_ value: Value) -> Double? {
        switch value {
        case .int(let v) where v.magnitude <= exactDoubleLimit: Double(v)
        case .double(let v) where !v.isNaN: v
        default: nil
        }
    }

    /// Each non-null key through `extract`, the null keys' positions in `nulls`; `nil` as soon as
    /// one key does not extract.
    private static func numbers(
        of keys: some Sequence<Value>, count: Int, nulls: inout [Int], _ extract: (Value) -> UInt64?
    ) -> [UInt64]? {
        nulls.removeAll(keepingCapacity: true)
        var numbers: [UInt64] = []
        numbers.reserveCapacity(count)
        for (position, key) in keys.enumerated() {
            if key.isNull {
                nulls.append(position)
            } else if let extracted = extract(key) {
                numbers.append(extracted)
            } else {
                return nil
            }
        }
        return numbers
    }

    /// The positions `indices` (into the keys other than the null ones, whose positions are
    /// `nulls`, ascending) stand for.
    private static func positions(of indices: [Int], skipping nulls: [Int]) -> [Int] {
        guard !nulls.isEmpty else { return indices }
        var positions: [Int] = []
        positions.reserveCapacity(indices.count)
        var next = 0
        for position in 0..<(indices.count + nulls.count) {
            if next < nulls.count, nulls[next] == position {
                next += 1
            } else {
                positions.append(position)
            }
        }
        return indices.map { positions[$0] }
    }

    /// Each non-null key through `extract`, with positions, the null keys' positions in `nulls`;
    /// `nil` as soon as one key does not extract.
    private static func column<Key>(
        of keys: [Value], nulls: inout [Int], _ extract: (Value) -> Key?
    ) -> [(key: Key, position: Int)]? {
        nulls.removeAll(keepingCapacity: true)
        var column: [(key: Key, position: Int)] = []
        column.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() {
            if key.isNull {
                nulls.append(position)
            } else if let extracted = extract(key) {
                column.append((extracted, position))
            } else {
                return nil
            }
        }
        return column
    }

    /// The positions of `column` sorted by key, ties by position.
    private static func positions<Key: Comparable>(_ column: [(key: Key, position: Int)], descending: Bool) -> [Int] {
        var column = column
        if descending {
            column.sort { $0.key != $1.key ? $0.key > $1.key : $0.position < $1.position }
        } else {
            column.sort { $0.key != $1.key ? $0.key < $1.key : $0.position < $1.position }
        }
        return column.map(\.position)
    }

    /// The general order: ``ValueOrder`` on every pair, ties by position.
    private static func comparingValues(_ keys: [Value], descending: Bool) -> [Int] {
        keys.withUnsafeBufferPointer { keys in
            keys.indices.sorted { a, b in ValueOrder.precedes(keys[a], keys[b], descending: descending) ?? (a < b) }
        }
    }
}
