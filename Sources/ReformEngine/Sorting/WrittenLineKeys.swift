#if canImport(Glibc)
import Glibc
#endif

/// Finds the values of top-level members in a line an output writer printed, without checking it
/// as JSON: the line is the writer's own (``HeldLines`` only sees lines the output wrote), so its
/// strings end at the first quote not escaped, and other values at the next `,`, `}` or `]` (after
/// their brackets, for an object or an array). That is a third of what locating the members with
/// the full check costs (``FieldLocator``, which also checks every string's UTF-8).
///
/// Anything that is not the writer's plain form — a line that is not an object, whitespace, a key
/// with an escape or non-ASCII byte (keys are compared by bytes, and non-ASCII keys compare by
/// Unicode equivalence) — returns `false`, and the caller locates with ``FieldLocator`` instead.
struct WrittenLineKeys {
    /// The UTF-8 of each key looked for (all printable ASCII).
    private let keys: [[UInt8]]
    /// Per key, where its value lies in the last line located (the last one when a key repeats).
    private(set) var ranges: [Range<Int>?]

    /// A finder of the top-level members `keys`, or `nil` when one is not printable ASCII.
    init?(keys: [String]) {
        let bytes = keys.map { Array($0.utf8) }
        guard bytes.allSatisfy({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } })
        else { return nil }
        self.keys = bytes
        ranges = Array(repeating: nil, count: keys.count)
    }

    /// Finds the keys' values in `line` (an object the writer printed, without its newline);
    /// `false` when the line is not in the writer's plain form (see the type).
    mutating func locate(_ line: UnsafeRawBufferPointer) -> Bool {
        for i in ranges.indices { ranges[i] = nil }
        guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self), line.count >= 2,
            base[0] == UInt8(ascii: "{")
        else { return false }
        let end = line.count
        var i = 1
        if base[i] == UInt8(ascii: "}") { return i + 1 == end }
        while true {
            guard i < end, base[i] == UInt8(ascii: "\"") else { return false }
            let keyStart = i + 1
            var k = keyStart
            while k < end, base[k] != UInt8(ascii: "\"") {
                guard base[k] != UInt8(ascii: "\\"), base[k] < 0x80 else { return false }
                k += 1
            }
            guard k + 1 < end, base[k + 1] == UInt8(ascii: ":") else { return false }
            let valueStart = k + 2
            guard let valueEnd = Self.valueEnd(base, from: valueStart, end: end) else { return false }
            let length = k - keyStart
            for index in keys.indices where keys[index].count == length {
                let same =
                    length == 0
                    || keys[index].withUnsafeBytes { key in key.baseAddress.map { memcmp($0, base + keyStart, length) == 0 } ?? false }
                if same { ranges[index] = valueStart..<valueEnd }
            }
            i = valueEnd
            guard i < end else { return false }
            if base[i] == UInt8(ascii: "}") { return i + 1 == end }
            guard base[i] == UInt8(ascii: ",") else { return false }
            i += 1
        }
    }

    /// Where the value starting at `start` ends (one past its last byte); `nil` when there is none.
    private static func valueEnd(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int? {
        guard start < end else { return nil }
        switch base[start] {
        case UInt8(ascii: "\""):
            return stringEnd(base, from: start + 1, end: end)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < end {
                switch base[i] {
                case UInt8(ascii: "\""):
                    guard let after = stringEnd(base, from: i + 1, end: end) else { return nil }
                    i = after
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            while i < end, base[i] != UInt8(ascii: ","), base[i] != UInt8(ascii: "}"), base[i] != UInt8(ascii: "]") {
                guard base[i] > 0x20 else { return nil }
                i += 1
            }
            return i > start ? i : nil
        }
    }

    /// One past the quote that closes the string whose text starts at `start`: the first quote
    /// after an even number of backslashes.
    private static func stringEnd(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int? {
        var i = start
        while i < end, let found = memchr(base + i, Int32(UInt8(ascii: "\"")), end - i) {
            let quote = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            var backslashes = 0
            while quote - backslashes - 1 >= start, base[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return quote + 1 }
            i = quote + 1
        }
        return nil
    }
}
