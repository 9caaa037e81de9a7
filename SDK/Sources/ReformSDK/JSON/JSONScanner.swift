/// The bytes being parsed and the read position.
@usableFromInline
internal struct Scanner {
    let base: UnsafePointer<UInt8>
    let end: Int
    var pos: Int = 0

    init(base: UnsafePointer<UInt8>, end: Int) {
        self.base = base
        self.end = end
    }

    /// The index of the first byte at or after `i` that ends the simple part of a string: a quote,
    /// a backslash, a control character or a non-ASCII byte; `end` if none. With a `limit`, the
    /// search may stop at or a little past it: then there is none before the index returned.
    @inline(__always)
    func firstSpecialStringByte(from start: Int, limit: Int? = nil) -> Int {
        let stop = limit ?? end
        var i = start
        // Eight bytes at a time: flag bytes equal to '"' or '\\', below 0x20, or with the high bit.
        while i + 8 <= end && i < stop {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let quote = x ^ (ones &* 0x22)
            let backslash = x ^ (ones &* 0x5C)
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((x &- ones &* 0x20) & ~x) | x
            let hits = special & highs
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < end && i < stop {
            let c = base[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return i }
            i += 1
        }
        return i
    }

    /// The index of the first quote, backslash or control character at or after `i`: where a string
    /// that may hold non-ASCII text ends or needs escape handling; `end` if none.
    @inline(__always)
    func firstQuoteBackslashOrControl(from start: Int) -> Int {
        var i = start
        while i + 8 <= end {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let quote = x ^ (ones &* 0x22)
            let backslash = x ^ (ones &* 0x5C)
            // Each term flags a byte only when that byte lacks the high bit, so non-ASCII passes.
            let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | (x &- ones &* 0x20)) & ~x
            let hits = special & highs
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < end {
            let c = base[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { return i }
            i += 1
        }
        return end
    }

    /// The index of the first byte at or after `start` that is not an ASCII digit; `end` if none.
    @inline(__always)
    static func digitEnd(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int {
        var i = start
        // Eight bytes at a time (a byte at a time was most of skipping a number): a byte XOR '0'
        // is a digit when it is at most 9, which adding 0x76 leaves below 0x80. A carry out of a
        // byte comes only from one that is not a digit, and only the first of those is read.
        while i &+ 8 <= end {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) ^ 0x3030_3030_3030_3030
            let hits = ((x &+ 0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080
            if hits != 0 { return i &+ hits.trailingZeroBitCount / 8 }
            i &+= 8
        }
        while i < end, base[i] >= UInt8(ascii: "0"), base[i] <= UInt8(ascii: "9") { i += 1 }
        return i
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while pos < end {
            let c = base[pos]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { pos += 1 } else { return }
        }
    }

    /// The 1-based line and byte column of `offset`.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        var i = 0
        while i < offset && i < end {
            if base[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return (line, offset - lineStart + 1)
    }

    /// A syntax error at the current position; `found` appends what is there instead.
    func error(_ message: String, found: Bool = false, code: JSONError.Code = .syntax) -> JSONError {
        var text = message
        if found { text += ", found " + describe(at: pos) }
        return JSONError(code: code, message: text, location: location(of: pos), offset: pos)
    }

    func describe(at offset: Int) -> String {
        guard offset < end else { return "end of input" }
        let c = base[offset]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        switch c {
        case 0x20: return "' '"
        default: return "byte \(hexByte(c))"
        }
    }

    /// Moves past `word` (`true`, `false` or `null`) at the cursor, or throws.
    @inline(__always)
    mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
        // The literal's first four bytes compared at once (the word is a constant where this is
        // inlined); a byte-by-byte loop and a call cost ~60 instructions a literal.
        let count = word.utf8CodeUnitCount
        if count >= 4, count <= 5, pos + count <= end,
            UnsafeRawPointer(base + pos).loadUnaligned(as: UInt32.self)
                == UnsafeRawPointer(word.utf8Start).loadUnaligned(as: UInt32.self),
            count == 4 || base[pos + 4] == word.utf8Start[4]
        {
            pos += count
            return
        }
        try expectLiteralByBytes(word)
    }

    /// ``expectLiteral(_:)`` byte by byte, saying where the input differs.
    @inline(never)
    private mutating func expectLiteralByBytes(_ word: StaticString) throws(JSONError) {
        let count = word.utf8CodeUnitCount
        let expected = word.utf8Start
        var k = 0
        while k < count {
            guard pos + k < end, base[pos + k] == expected[k] else {
                pos += k
                throw error("expected '\(word)'", found: true)
            }
            k += 1
        }
        pos += count
    }

    func hex4IfValid(at i: Int) -> UInt32? {
        guard i + 4 <= end else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = base[i + k]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    mutating func hex4(at i: Int) throws(JSONError) -> UInt32 {
        if let v = hex4IfValid(at: i) { return v }
        pos = i - 2
        throw error("expected 4 hex digits after '\\u'")
    }

    /// Checks the multi-byte UTF-8 sequence at `i` (Unicode table 3-7); returns its length.
    mutating func validateUTF8Sequence(at i: Int) throws(JSONError) -> Int {
        let c = base[i]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default:
            pos = i
            throw error("invalid UTF-8 byte \(hexByte(c)) in a string", code: .encoding)
        }
        for k in 1..<length {
            guard i + k < end else {
                pos = i
                throw error("truncated UTF-8 sequence in a string", code: .encoding)
            }
            let b = base[i + k]
            let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard b >= lo && b <= hi else {
                pos = i
                throw error("invalid UTF-8 sequence starting with byte \(hexByte(c)) in a string", code: .encoding)
            }
        }
        return length
    }
}
