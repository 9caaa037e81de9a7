/// Sorts numbers as unsigned bits that order as the numbers do, a byte at a time from the lowest
/// (a least-significant-digit radix sort), each pass keeping the order of equal bytes: ties stay in
/// arrival order. On 400,000 integer keys this took a tenth of the time of a comparison sort of
/// `(key, position)` pairs.
///
/// Where the keys' spread and their count fit in 64 bits together (prices, years and counts over
/// millions of lines do), each key becomes one word, its distance from the smallest above its
/// index, and only the bytes of the distance are sorted on: half the memory of pairs, written
/// fresh (a page fault every 4 KiB), and fewer passes.
enum RadixOrder {
    /// The bits of `value` that order as integers do.
    static func bits(of value: Int) -> UInt64 {
        UInt64(bitPattern: Int64(value)) ^ (1 << 63)
    }

    /// The bits of `value` (not NaN) that order as doubles do, `-0.0` equal to `0.0`.
    static func bits(of value: Double) -> UInt64 {
        let bits = (value == 0 ? 0.0 : value).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    /// The indices of `keys` sorted by key (largest first when `descending`), ties by index.
    static func order(_ keys: consuming [UInt64], descending: Bool) -> [Int] {
        var words = keys
        guard let first = words.first.map({ descending ? ~$0 : $0 }) else { return [] }
        var low = UInt64.max
        var high = UInt64.min
        // The bits in which any two keys differ (each from the first): the bytes a pass is for.
        var varying: UInt64 = 0
        for i in words.indices {
            if descending { words[i] = ~words[i] }
            low = min(low, words[i])
            high = max(high, words[i])
            varying |= words[i] ^ first
        }
        let indexBits = max(1, Int.bitWidth - (words.count - 1).leadingZeroBitCount)
        let spreadBits = UInt64.bitWidth - (high - low).leadingZeroBitCount
        guard spreadBits + indexBits <= UInt64.bitWidth else {
            var pairs = words.enumerated().map { (key: $0.element, index: $0.offset) }
            sort(&pairs, bytes: (0..<8).filter { varying >> (8 * UInt64($0)) & 0xFF != 0 })
            return pairs.map(\.index)
        }
        for i in words.indices { words[i] = (words[i] - low) << UInt64(indexBits) | UInt64(i) }
        var target = words
        for byte in 0..<(spreadBits + 7) / 8 {
            let shift = UInt64(indexBits + 8 * byte)
            pass(words, into: &target) { Int(($0 >> shift) & 0xFF) }
            swap(&words, &target)
        }
        let mask = UInt64(1) << UInt64(indexBits) - 1
        return words.map { Int($0 & mask) }
    }

    /// Sorts `pairs` by key, one pass per byte of `bytes` (lowest first), keeping the order of ties.
    private static func sort(_ pairs: inout [(key: UInt64, index: Int)], bytes: [Int]) {
        var target = pairs
        for byte in bytes {
            let shift = 8 * UInt64(byte)
            pass(pairs, into: &target) { Int(($0.key >> shift) & 0xFF) }
            swap(&pairs, &target)
        }
    }

    /// One pass: `source` into `target` (as long) ordered by each element's `digit` (0 to 255),
    /// elements of the same digit in the order they come.
    private static func pass<Element>(_ source: [Element], into target: inout [Element], digit: (Element) -> Int) {
        var starts = [Int](repeating: 0, count: 256)
        for element in source { starts[digit(element)] += 1 }
        var total = 0
        for value in 0..<256 {
            let count = starts[value]
            starts[value] = total
            total += count
        }
        for element in source {
            let value = digit(element)
            target[starts[value]] = element
            starts[value] += 1
        }
    }
}
