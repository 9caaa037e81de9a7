extension JSONParser {
    /// Finds the elements of an array that has been checked already — a value's range from
    /// ``locate(_:plan:into:canonical:)`` or ``locate(_:keeping:into:canonical:)`` of the same
    /// bytes — as ``locateElements(_:into:canonical:)`` does, without checking it again: strings
    /// are passed by their closing quote, numbers by their run of bytes, containers by their
    /// brackets. (Checking an exploded array a second time was ~500 instructions of a record.)
    ///
    /// On bytes that were not checked the ranges are meaningless but stay inside `bytes`; `false`
    /// when they are not an array, or end before it does.
    @_spi(Engine) public func locateElements(
        ofChecked bytes: UnsafeRawBufferPointer, into ranges: inout [Range<Int>], canonical: inout [Bool]
    )
        -> Bool
    {
        guard let raw = bytes.baseAddress else { return false }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        let end = bytes.count
        var count = 0
        defer {
            if ranges.count > count { ranges.removeSubrange(count...) }
            if canonical.count > count { canonical.removeSubrange(count...) }
        }
        var i = Self.checkedWhitespaceEnd(base, from: 0, end: end)
        guard i < end, base[i] == UInt8(ascii: "[") else { return false }
        i = Self.checkedWhitespaceEnd(base, from: i + 1, end: end)
        if i < end, base[i] == UInt8(ascii: "]") { return true }
        while i < end {
            let start = i
            let isCanonical: Bool
            switch base[i] {
            case UInt8(ascii: "\""):
                guard let (close, plain) = Self.checkedStringEnd(base, from: i + 1, end: end) else { return false }
                i = close + 1
                isCanonical = plain
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard let close = Self.checkedContainerEnd(base, from: i, end: end) else { return false }
                i = close + 1
                isCanonical = false
            default:
                // A number or literal: up to the next comma, bracket or whitespace.
                while i < end, !Self.endsScalar(base[i]) { i += 1 }
                let first = base[start]
                isCanonical =
                    first == UInt8(ascii: "t") || first == UInt8(ascii: "f") || first == UInt8(ascii: "n")
                    || (i > start && Self.isCanonicalNumber(base, from: start, to: i))
            }
            if count < ranges.count, count < canonical.count {
                ranges[count] = start..<i
                canonical[count] = isCanonical
            } else {
                ranges.append(start..<i)
                canonical.append(isCanonical)
            }
            count += 1
            i = Self.checkedWhitespaceEnd(base, from: i, end: end)
            guard i < end else { return false }
            if base[i] == UInt8(ascii: "]") { return true }
            i = Self.checkedWhitespaceEnd(base, from: i + 1, end: end)  // the comma
        }
        return false
    }

    @inline(__always)
    private static func checkedWhitespaceEnd(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int {
        var i = start
        while i < end, base[i] == 0x20 || base[i] == 0x0A || base[i] == 0x0D || base[i] == 0x09 { i += 1 }
        return i
    }

    @inline(__always)
    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") || byte == 0x20 || byte == 0x0A
            || byte == 0x0D || byte == 0x09
    }

    /// The closing quote of the checked string whose bytes start at `start`, and whether it is
    /// what the writer prints (no escape, no DEL); eight bytes at a time.
    @inline(__always)
    private static func checkedStringEnd(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> (Int, Bool)? {
        var plain = true
        var i = start
        while true {
            // The first quote, backslash or DEL: bytes past ASCII pass, as they are checked already.
            while i &+ 8 <= end {
                let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let quote = x ^ (ones &* 0x22)
                let backslash = x ^ (ones &* 0x5C)
                let delete = x ^ (ones &* 0x7F)
                let hits = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((delete &- ones) & ~delete)) & ~x
                let found = hits & (ones &* 0x80)
                if found != 0 {
                    i &+= found.trailingZeroBitCount / 8
                    break
                }
                i &+= 8
            }
            while i < end, base[i] != UInt8(ascii: "\""), base[i] != UInt8(ascii: "\\"), base[i] != 0x7F { i += 1 }
            guard i < end else { return nil }
            switch base[i] {
            case UInt8(ascii: "\""):
                return (i, plain)
            case UInt8(ascii: "\\"):
                plain = false
                i += 2  // the escaped byte; a `\u`'s hex digits hold no quote or backslash
            default:
                plain = false  // DEL, which the writer escapes
                i += 1
            }
        }
    }

    /// The closing bracket of the checked container at `start`.
    private static func checkedContainerEnd(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int? {
        var depth = 0
        var i = start
        while i < end {
            switch base[i] {
            case UInt8(ascii: "\""):
                guard let (close, _) = checkedStringEnd(base, from: i + 1, end: end) else { return nil }
                i = close
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return i }
            default:
                break
            }
            i += 1
        }
        return nil
    }
}
