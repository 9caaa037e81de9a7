import ReformSystem

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
    /// The bytes of the keys looked for (all printable ASCII), one after another: key `i` is
    /// `lengths[i]` bytes from `starts[i]`. Compared in place (packing a line's key into words
    /// first stalled each compare on reading back the bytes just copied: a third of the locate).
    private let keyBytes: [UInt8], starts: [Int], lengths: [Int]
    /// Per key, where its value lies in the last line located (the last one when a key repeats).
    private(set) var ranges: [Range<Int>?]

    /// A finder of the top-level members `keys`, or `nil` when one is not printable ASCII.
    init?(keys: [String]) {
        let bytes = keys.map { Array($0.utf8) }
        guard bytes.allSatisfy({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } })
        else { return nil }
        keyBytes = bytes.flatMap { $0 }
        lengths = bytes.map(\.count)
        starts = Array(lengths.reduce(into: [0]) { $0.append($0[$0.count - 1] + $1) }.dropLast())
        ranges = Array(repeating: nil, count: keys.count)
    }

    /// Finds the keys' values in `line` (an object the writer printed, without its newline);
    /// `false` when the line is not in the writer's plain form (see the type).
    mutating func locate(_ line: UnsafeRawBufferPointer) -> Bool {
        // Filled as a local buffer: setting an element of the stored array checked it was not
        // shared, each time.
        var found: [Range<Int>?] = []
        swap(&found, &ranges)
        defer { swap(&found, &ranges) }
        return found.withUnsafeMutableBufferPointer { found in
            for i in found.indices { found[i] = nil }
            return keyBytes.withUnsafeBufferPointer { keyBytes in locate(line, into: found, keyBytes: keyBytes) }
        }
    }

    /// ``locate(_:)`` with its results and the keys' bytes as buffers.
    private func locate(
        _ line: UnsafeRawBufferPointer, into found: UnsafeMutableBufferPointer<Range<Int>?>, keyBytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self), line.count >= 2,
            base[0] == UInt8(ascii: "{")
        else { return false }
        let end = line.count
        var i = 1
        if base[i] == UInt8(ascii: "}") { return i + 1 == end }
        while true {
            guard i < end, base[i] == UInt8(ascii: "\"") else { return false }
            let keyStart = i + 1
            // A key in the plain form holds no backslash and no byte past ASCII.
            let k = Self.firstQuoteOrBackslash(base, from: keyStart, end: end, stopAtHighBytes: true)
            guard k + 1 < end, base[k] == UInt8(ascii: "\""), base[k + 1] == UInt8(ascii: ":") else { return false }
            let valueStart = k + 2
            guard let valueEnd = Self.valueEnd(base, from: valueStart, end: end) else { return false }
            let length = k - keyStart
            // Each key is looked for once (``LineSteps`` passes each path once).
            if let index = match(base + keyStart, length: length, keyBytes: keyBytes) { found[index] = valueStart..<valueEnd }
            i = valueEnd
            guard i < end else { return false }
            if base[i] == UInt8(ascii: "}") { return i + 1 == end }
            guard base[i] == UInt8(ascii: ",") else { return false }
            i += 1
        }
    }

    /// The position of the key `length` bytes long at `key` among the keys looked for, if it is
    /// one: its bytes are compared only when its length is one looked for.
    @inline(__always)
    private func match(_ key: UnsafePointer<UInt8>, length: Int, keyBytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let keysBase = keyBytes.baseAddress else { return lengths.firstIndex(of: length) }
        for index in lengths.indices where lengths[index] == length {
            if memcmp(key, keysBase + starts[index], length) == 0 { return index }
        }
        return nil
    }

    /// Where the value starting at `start` ends (one past its last byte); `nil` when there is none.
    @inline(__always)
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
            // A number, `true`, `false` or `null`: it ends at a `,`, `}` or `]`; a space or a
            // control byte before that is not the plain form.
            let i = firstDelimiterOrSpace(base, from: start, end: end)
            guard i == end || base[i] > 0x20 else { return nil }
            return i > start ? i : nil
        }
    }

    /// One past the quote that closes the string whose text starts at `start`. In the writer's
    /// form a backslash always starts an escape and the byte after it is never the closing quote,
    /// so the scan steps over it (`\uXXXX`'s digits are not quotes either).
    private static func stringEnd(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int? {
        var i = start
        while true {
            i = firstQuoteOrBackslash(base, from: i, end: end, stopAtHighBytes: false)
            guard i < end else { return nil }
            if base[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 2
        }
    }

    /// The index of the first `,`, `}`, `]` or byte up to a space at or after `start`; `end`
    /// when there is none. (A byte at a time was a third of finding a line's keys.)
    @inline(__always)
    private static func firstDelimiterOrSpace(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int {
        firstByte(base, from: start, end: end) { x in
            let comma = x ^ (ones &* 0x2C)
            let bracket = x ^ (ones &* 0x5D)
            let brace = x ^ (ones &* 0x7D)
            return ((comma &- ones) & ~comma) | ((bracket &- ones) & ~bracket) | ((brace &- ones) & ~brace) | ((x &- ones &* 0x21) & ~x)
        } matching: { c in
            c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c <= 0x20
        }
    }

    /// The index of the first quote or backslash at or after `start` (and, with
    /// `stopAtHighBytes`, the first byte past ASCII); `end` when there is none.
    @inline(__always)
    private static func firstQuoteOrBackslash(_ base: UnsafePointer<UInt8>, from start: Int, end: Int, stopAtHighBytes: Bool) -> Int {
        firstByte(base, from: start, end: end) { x in
            let quote = x ^ (ones &* 0x22)
            let backslash = x ^ (ones &* 0x5C)
            let flagged = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
            return stopAtHighBytes ? flagged | x : flagged & ~x
        } matching: { c in
            c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || (stopAtHighBytes && c >= 0x80)
        }
    }

    /// `0x01` in every byte of a word.
    private static let ones: UInt64 = 0x0101_0101_0101_0101

    /// The index of the first byte at or after `start` that `matching` takes; `end` when there is
    /// none. Eight bytes at a time while eight are left: `flags` sets the high bit of each byte
    /// it takes in a word read little-endian, exactly up to the first one (the usual zero-byte
    /// tests flag bytes after a hit too, which is fine: only the first is read).
    @inline(__always)
    private static func firstByte(
        _ base: UnsafePointer<UInt8>, from start: Int, end: Int, flags: (UInt64) -> UInt64, matching: (UInt8) -> Bool
    ) -> Int {
        var i = start
        while i &+ 8 <= end {
            let hits = flags(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) & 0x8080_8080_8080_8080
            if hits != 0 { return i &+ hits.trailingZeroBitCount / 8 }
            i &+= 8
        }
        while i < end {
            if matching(base[i]) { return i }
            i += 1
        }
        return end
    }
}
