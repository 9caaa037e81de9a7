internal import CJSONVector

/// The top-level members of an object document that a consumer needs, so the parser can build only
/// those (see ``JSONParser/parse(_:keeping:)``).
@_spi(Engine) @frozen
public struct JSONProjection: Sendable, Hashable {
    /// The member keys to build, in no particular order.
    public let keys: [String]
    @usableFromInline let prints: [KeyPrint]

    /// A projection keeping the members named `keys`.
    public init(keys: some Sequence<String>) {
        var unique: [String] = []
        for key in keys where !unique.contains(key) { unique.append(key) }
        self.keys = unique
        prints = unique.map { KeyPrint(decoded: $0) }
    }

    /// Hashes the keys.
    public func hash(into hasher: inout Hasher) { hasher.combine(keys) }

    /// Projections are equal when they keep the same keys in the same order.
    public static func == (lhs: JSONProjection, rhs: JSONProjection) -> Bool { lhs.keys == rhs.keys }
}

extension KeyPrint: @unchecked Sendable {}

extension JSONParser {
    /// Parses one document, building only the top-level members `projection` keeps when the
    /// document is an object.
    ///
    /// Every other member is checked exactly as ``parse(_:)`` checks it (grammar, escapes, UTF-8,
    /// nesting depth) but not built, which is most of the cost of parsing a record whose consumer
    /// reads a few of its fields. A document that is not an object is parsed in full. A kept key
    /// that repeats keeps its first position and takes the last value, as in ``parse(_:)``.
    @_spi(Engine) public mutating func parse(_ bytes: UnsafeRawBufferPointer, keeping projection: JSONProjection) throws(JSONError) -> Value
    {
        var s = try makeScanner(bytes)
        s.skipWhitespace()
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: "{") else {
            let value = try parseValue(&s)
            s.skipWhitespace()
            if s.pos < s.end { throw s.error("expected end of input after the value", found: true) }
            return value
        }
        s.pos += 1
        s.skipWhitespace()
        var object = Object(minimumCapacity: projection.keys.count)
        if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "}") {
            s.pos += 1
        } else {
            let outerLimit = limits.maximumDepth
            limits.maximumDepth = max(0, outerLimit - 1)
            defer { limits.maximumDepth = outerLimit }
            if outerLimit < 1 { try checkDepth(&s, 0) }
            while true {
                // Keys are matched by fingerprint from the bytes; only kept ones get a string,
                // the projection's own, so skipped members allocate nothing.
                let kept = try locateKey(&s, projection)
                do {
                    if let kept {
                        object[projection.keys[kept]] = try parseValue(&s)
                    } else {
                        try skipValue(&s)
                    }
                } catch {
                    // Member values are read one level down, with the limit lowered to match;
                    // the error names the limit the caller set.
                    guard error.code == .tooDeep else { throw error }
                    throw JSONError(
                        code: .tooDeep, message: JSONParser.tooDeepMessage(outerLimit), line: error.line,
                        column: error.column, offset: error.offset)
                }
                s.skipWhitespace()
                guard s.pos < s.end else { throw s.error("expected ',' or '}' after an object member", found: true) }
                let c = s.base[s.pos]
                if c == UInt8(ascii: ",") {
                    s.pos += 1
                    s.skipWhitespace()
                } else if c == UInt8(ascii: "}") {
                    s.pos += 1
                    break
                } else {
                    throw s.error("expected ',' or '}' after an object member", found: true)
                }
            }
        }
        s.skipWhitespace()
        if s.pos < s.end { throw s.error("expected end of input after the value", found: true) }
        return .object(object)
    }

    /// Checks one value at the cursor and moves past it without building anything.
    mutating func skipValue(_ s: inout Scanner) throws(JSONError) {
        // Up to 64 levels the open containers are bits in a register; a value nested deeper is
        // skipped again from its start with a stack that grows (the depth limit still applies).
        // One stack for both kept an array that every call released (~10 calls a line).
        let start = s.pos
        if try skipValue(&s, open: ShallowContainers()) { return }
        s.pos = start
        _ = try skipValue(&s, open: DeepContainers())
    }

    /// ``skipValue(_:)`` with `open` keeping the containers open; `false` (the cursor anywhere)
    /// when `open` cannot hold as many as the value nests.
    @inline(__always)
    private mutating func skipValue<Open: OpenContainers>(_ s: inout Scanner, open: Open) throws(JSONError) -> Bool {
        var open = open
        // Whether an object member's key comes before the next value: keys are read in this one
        // place, so that the key reading is inlined (a call per key was ~20 instructions of ~70).
        var keyFirst = false
        nextValue: while true {
            if keyFirst {
                keyFirst = false
                guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: "\"") else { throw s.error("expected a string key", found: true) }
                try skipString(&s)
                s.skipWhitespace()
                guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: ":") else {
                    throw s.error("expected ':' after an object key", found: true)
                }
                s.pos += 1
                s.skipWhitespace()
            }
            guard s.pos < s.end else { throw s.error("expected a value", found: true) }
            switch s.base[s.pos] {
            case UInt8(ascii: "\""):
                try skipString(&s)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = s.base[s.pos] == UInt8(ascii: "{")
                s.pos += 1
                s.skipWhitespace()
                if s.pos < s.end, s.base[s.pos] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    s.pos += 1
                } else {
                    try checkDepth(&s, open.depth)
                    guard open.push(isObject) else { return false }
                    keyFirst = isObject
                    continue nextValue
                }
            case UInt8(ascii: "t"): try s.expectLiteral("true")
            case UInt8(ascii: "f"): try s.expectLiteral("false")
            case UInt8(ascii: "n"): try s.expectLiteral("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber(&s)
            default: throw s.error("expected a value", found: true)
            }
            while open.depth > 0 {
                let isObject = open.innermostIsObject
                s.skipWhitespace()
                guard s.pos < s.end else {
                    throw s.error(
                        isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element", found: true)
                }
                let c = s.base[s.pos]
                if c == UInt8(ascii: ",") {
                    s.pos += 1
                    s.skipWhitespace()
                    keyFirst = isObject
                    continue nextValue
                } else if c == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    s.pos += 1
                    open.pop()
                } else {
                    throw s.error(
                        isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element", found: true)
                }
            }
            return true
        }
    }

    /// Checks the string at the cursor (escapes, control characters, UTF-8) and moves past it;
    /// returns whether it held an escape.
    ///
    /// A short string of plain ASCII (most keys and many values) is passed here, in the caller;
    /// the rest, and any string longer than 64 bytes, goes through
    /// ``skipStringRest(_:at:start:)``. A call per string was a tenth of a compiled chain's
    /// locating.
    @discardableResult
    @inline(__always)
    mutating func skipString(_ s: inout Scanner) throws(JSONError) -> Bool {
        let start = s.pos + 1
        let i = s.firstSpecialStringByte(from: start, limit: start + 64)
        if i < s.end, s.base[i] == UInt8(ascii: "\"") {
            s.pos = i + 1
            return false
        }
        return try skipStringRest(&s, at: i, start: start)
    }

    /// ``skipString(_:)`` from `first`, the first byte of the string at `start` that is not plain
    /// ASCII, or any byte after a run of plain ASCII.
    @inline(never)
    private mutating func skipStringRest(_ s: inout Scanner, at first: Int, start: Int) throws(JSONError) -> Bool {
        // 32 bytes at a time where the machine can (AVX2): non-ASCII text checked byte by byte
        // below was about a tenth of locating a record. Whatever that finds wrong is read again
        // below, which says what and where.
        var vectorEscaped: Int32 = 0
        let end = reform_json_skip_string(s.base, s.end, first, &vectorEscaped)
        if end >= 0 {
            s.pos = end
            return vectorEscaped != 0
        }
        var escaped = false
        var i = first
        while true {
            guard i < s.end else {
                throw JSONError(code: .syntax, message: "unterminated string", location: s.location(of: start - 1), offset: start - 1)
            }
            let c = s.base[i]
            if c == UInt8(ascii: "\"") {
                s.pos = i + 1
                return escaped
            } else if c == UInt8(ascii: "\\") {
                escaped = true
                i = try skipEscape(&s, at: i)
            } else if c < 0x20 {
                s.pos = i
                throw s.error("control character \(hexByte(c, prefix: "U+00")) must be escaped in a string")
            } else if c >= 0x80 {
                // Runs of the common 3-byte sequences (CJK) are checked inline; anything else, and
                // every error, goes through the scanner's full check.
                while i + 2 < s.end, s.base[i] >= 0xE1, s.base[i] <= 0xEC,
                    s.base[i + 1] & 0xC0 == 0x80, s.base[i + 2] & 0xC0 == 0x80
                {
                    i += 3
                }
                if i < s.end, s.base[i] >= 0x80 { i += try s.validateUTF8Sequence(at: i) }
            } else {
                i += 1
            }
            i = s.firstSpecialStringByte(from: i)
        }
    }

    /// Checks the escape at `i` (a backslash) as ``parseEscape(_:at:)`` does, without decoding it;
    /// returns the index after it. (Decoding each escape into ``scratch``, emptied each time, was
    /// ~90 instructions an escape: a URL with its slashes escaped has a dozen.)
    @inline(__always)
    private mutating func skipEscape(_ s: inout Scanner, at i: Int) throws(JSONError) -> Int {
        if i + 1 < s.end {
            switch s.base[i + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return i + 2
            case UInt8(ascii: "u"):
                // A surrogate pair is two escapes here, each valid on its own.
                if s.hex4IfValid(at: i + 2) != nil { return i + 6 }
            default: break
            }
        }
        // Not a valid escape: parseEscape throws what it throws for it.
        return try parseEscape(&s, at: i)
    }
}

extension JSONParser {
    /// Finds the values of the members `projection` keeps in an object document as byte ranges of
    /// `bytes`, building nothing, and checks the rest of the document as ``parse(_:)`` would.
    ///
    /// `ranges` is resized to the projection's key count; entry `i` is the range of the value of
    /// `projection.keys[i]` (the last one when the key repeats), or `nil` when absent. `canonical[i]`
    /// says whether those bytes are already what ``JSON/write(_:into:)`` prints for the value —
    /// strings without escapes or DEL, integers of up to 15 digits without a sign on zero, short
    /// decimal fractions as the writer prints them, `true`, `false`, `null` — so they can be copied
    /// as they are; other values need re-encoding. Returns
    /// `false` when the document is invalid or not an object (``parse(_:)`` then says why).
    @_spi(Engine) public mutating func locate(
        _ bytes: UnsafeRawBufferPointer, keeping projection: JSONProjection, into ranges: inout [Range<Int>?],
        canonical: inout [Bool]
    ) -> Bool {
        guard var s = startLocating(bytes, entries: projection.keys.count, ranges: &ranges, canonical: &canonical) else { return false }
        // The arrays are written through their buffers: a checked subscript per member would ask
        // each time whether the array is shared (measured: 4% of a compiled chain's time).
        return ranges.withUnsafeMutableBufferPointer { ranges in
            canonical.withUnsafeMutableBufferPointer { canonical in
                projection.prints.withUnsafeBufferPointer { prints in
                    locateMembers(&s, projection, prints: prints, into: ranges, canonical: canonical)
                }
            }
        }
    }

    /// The members of the object `s` is inside (after its `{`), to its end: see
    /// ``locate(_:keeping:into:canonical:)``.
    private mutating func locateMembers(
        _ s: inout Scanner, _ projection: JSONProjection, prints: UnsafeBufferPointer<KeyPrint>,
        into ranges: UnsafeMutableBufferPointer<Range<Int>?>, canonical: UnsafeMutableBufferPointer<Bool>
    ) -> Bool {
        do {
            if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "}") {
                s.pos += 1
            } else {
                // The document's object is a level of its own, as `parse(_:keeping:)` counts it.
                let outerLimit = limits.maximumDepth
                limits.maximumDepth = max(0, outerLimit - 1)
                defer { limits.maximumDepth = outerLimit }
                if outerLimit < 1 { try checkDepth(&s, 0) }
                while true {
                    if let index = try locateKey(&s, prints: prints, slowMatch: { projection.index(of: $0, $1) }) {
                        let start = s.pos
                        canonical[index] = try skipCanonical(&s)
                        ranges[index] = start..<s.pos
                    } else {
                        try skipValue(&s)
                    }
                    s.skipWhitespace()
                    guard s.pos < s.end else { return false }
                    let c = s.base[s.pos]
                    s.pos += 1
                    if c == UInt8(ascii: "}") { break }
                    guard c == UInt8(ascii: ",") else { return false }
                    s.skipWhitespace()
                }
            }
        } catch {
            return false
        }
        s.skipWhitespace()
        return s.pos == s.end
    }

    /// Sizes `ranges` (all `nil`) and `canonical` for `entries` members and returns a scanner
    /// inside the object document `bytes` (after its `{`), or `nil` when it is not one.
    func startLocating(_ bytes: UnsafeRawBufferPointer, entries: Int, ranges: inout [Range<Int>?], canonical: inout [Bool]) -> Scanner? {
        if canonical.count != entries { canonical = Array(repeating: true, count: entries) }
        if ranges.count != entries {
            ranges = Array(repeating: nil, count: entries)
        } else {
            for i in ranges.indices { ranges[i] = nil }
        }
        guard var s = try? makeScanner(bytes) else { return nil }
        s.skipWhitespace()
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: "{") else { return nil }
        s.pos += 1
        s.skipWhitespace()
        return s
    }

    /// Finds the elements of an array document as byte ranges of `bytes`, building nothing, and
    /// checks the document as ``parse(_:)`` would; `canonical[i]` says whether element `i` is
    /// already what ``JSON/write(_:into:)`` prints (see ``locate(_:keeping:into:canonical:)``).
    /// Returns `false` when the document is invalid or not an array.
    @_spi(Engine) public mutating func locateElements(
        _ bytes: UnsafeRawBufferPointer, into ranges: inout [Range<Int>], canonical: inout [Bool]
    ) -> Bool {
        // The arrays' entries are overwritten and the extra ones cut at the end: emptying them
        // first and appending cost ~250 instructions for a three-element array.
        var count = 0
        let found = locateElements(bytes, ranges: &ranges, canonical: &canonical, count: &count)
        if ranges.count > count { ranges.removeSubrange(count...) }
        if canonical.count > count { canonical.removeSubrange(count...) }
        return found
    }

    /// ``locateElements(_:into:canonical:)`` writing the first `count` entries of the arrays.
    private mutating func locateElements(
        _ bytes: UnsafeRawBufferPointer, ranges: inout [Range<Int>], canonical: inout [Bool], count: inout Int
    ) -> Bool {
        guard var s = try? makeScanner(bytes) else { return false }
        s.skipWhitespace()
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: "[") else { return false }
        s.pos += 1
        s.skipWhitespace()
        do {
            if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "]") {
                s.pos += 1
            } else {
                while true {
                    let start = s.pos
                    let isCanonical = try skipCanonical(&s)
                    if count < ranges.count, count < canonical.count {
                        ranges[count] = start..<s.pos
                        canonical[count] = isCanonical
                    } else {
                        ranges.append(start..<s.pos)
                        canonical.append(isCanonical)
                    }
                    count += 1
                    s.skipWhitespace()
                    guard s.pos < s.end else { return false }
                    let c = s.base[s.pos]
                    s.pos += 1
                    if c == UInt8(ascii: "]") { break }
                    guard c == UInt8(ascii: ",") else { return false }
                    s.skipWhitespace()
                }
            }
        } catch {
            return false
        }
        s.skipWhitespace()
        return s.pos == s.end
    }

    /// Reads `"key":` and returns the key's position in `projection`, if kept. Short keys without
    /// escapes are matched by fingerprint straight from the bytes, building no string.
    @inline(__always)
    private mutating func locateKey(_ s: inout Scanner, _ projection: JSONProjection) throws(JSONError) -> Int? {
        try projection.prints.withUnsafeBufferPointer { prints throws(JSONError) in
            try locateKey(&s, prints: prints) { projection.index(of: $0, $1) }
        }
    }

    /// ``locateKey(_:_:)`` with the projection's fingerprints at hand; `slowMatch` finds a key
    /// that has escapes or is longer than a fingerprint (the projection's `index(of:_:)`).
    @inline(__always)
    mutating func locateKey(
        _ s: inout Scanner, prints: UnsafeBufferPointer<KeyPrint>, slowMatch: (String, KeyPrint) -> Int?
    ) throws(JSONError) -> Int? {
        try locateKey(
            &s,
            find: { print in
                for k in prints.indices where prints[k] == print { return k }
                return nil
            }, slowMatch: slowMatch)
    }

    /// Reads the key at the cursor and the `:` after it; returns what `find` says of its
    /// fingerprint, or for a key that has escapes or is longer than a fingerprint, what
    /// `slowMatch` says of it.
    @inline(__always)
    mutating func locateKey(
        _ s: inout Scanner, find: (KeyPrint) -> Int?, slowMatch: (String, KeyPrint) -> Int?
    ) throws(JSONError) -> Int? {
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: "\"") else { throw s.error("expected a string key", found: true) }
        let start = s.pos + 1
        let i = s.firstSpecialStringByte(from: start, limit: min(s.end, start + 17))
        guard i < s.end, i - start <= 16, s.base[i] == UInt8(ascii: "\"") else {
            let (key, print) = try parseKey(&s)
            return slowMatch(key, print)
        }
        let length = i - start
        let print = start + 16 <= s.end ? KeyPrint(loading: s.base + start, length) : KeyPrint(s.base + start, length)
        s.pos = i + 1
        s.skipWhitespace()
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: ":") else { throw s.error("expected ':' after an object key", found: true) }
        s.pos += 1
        s.skipWhitespace()
        return find(print)
    }

    /// Skips one value; whether its bytes are exactly what ``JSON/write(_:into:)`` would print.
    mutating func skipCanonical(_ s: inout Scanner) throws(JSONError) -> Bool {
        guard s.pos < s.end else { throw s.error("expected a value", found: true) }
        let start = s.pos
        switch s.base[s.pos] {
        case UInt8(ascii: "\""):
            if try skipString(&s) { return false }
            // DEL is valid unescaped JSON, but the writer escapes it (as jq does).
            return !CMemory.contains(0x7F, s.base + start, count: s.pos - start)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            try skipValue(&s)
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber(&s)
            return Self.isCanonicalNumber(s.base, from: start, to: s.pos)
        default:
            try skipValue(&s)
            return false
        }
    }
}

extension JSONParser {
    /// Whether the number literal `base[from..<to]` (valid JSON) is what the writer prints for its
    /// value: an integer of up to 15 digits (no `-0`), or a decimal fraction without an exponent or
    /// trailing zeros, of up to 15 significant digits, with at most 15 integer digits and at most 3
    /// zeros after the point before the first significant digit. Up to 15 significant digits, a
    /// decimal is the only one that short to name its double, so the shortest round-trip digits the
    /// writer prints are its own, and within those bounds jq's format writes them without an exponent.
    static func isCanonicalNumber(_ base: UnsafePointer<UInt8>, from: Int, to end: Int) -> Bool {
        var i = from
        if base[i] == UInt8(ascii: "-") { i += 1 }
        let integerStart = i
        i = Scanner.digitEnd(base, from: i, end: end)
        let integerDigits = i - integerStart
        guard integerDigits >= 1, integerDigits <= 15 else { return false }
        let leadingZero = base[integerStart] == UInt8(ascii: "0")
        if i == end {
            // An integer: no leading zeros, no negative zero.
            return !leadingZero || (integerDigits == 1 && integerStart == from)
        }
        guard base[i] == UInt8(ascii: ".") else { return false }  // an exponent
        i += 1
        let fractionStart = i
        i = Scanner.digitEnd(base, from: i, end: end)
        guard i == end, i > fractionStart, base[end - 1] != UInt8(ascii: "0") else { return false }
        let fractionDigits = end - fractionStart
        if leadingZero {
            var zeros = 0
            while base[fractionStart + zeros] == UInt8(ascii: "0") { zeros += 1 }
            return zeros <= 3 && fractionDigits - zeros <= 15
        }
        return integerDigits + fractionDigits <= 15
    }

    /// Checks the number at the cursor against the JSON grammar and moves past it, converting
    /// nothing; the errors are those of a full parse.
    mutating func skipNumber(_ s: inout Scanner) throws(JSONError) {
        let start = s.pos
        var i = s.pos
        func digit(_ at: Int) -> Bool { at < s.end && s.base[at] >= UInt8(ascii: "0") && s.base[at] <= UInt8(ascii: "9") }
        if s.base[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else {
            _ = try parseNumber(&s)  // not a number: let the full parser word the error
            return
        }
        if s.base[i] == UInt8(ascii: "0") {
            i += 1
            if digit(i) {
                _ = try parseNumber(&s)
                return
            }
        } else {
            i = Scanner.digitEnd(s.base, from: i, end: s.end)
        }
        if i < s.end, s.base[i] == UInt8(ascii: ".") {
            i += 1
            guard digit(i) else {
                s.pos = start
                _ = try parseNumber(&s)
                return
            }
            i = Scanner.digitEnd(s.base, from: i, end: s.end)
        }
        if i < s.end, s.base[i] == UInt8(ascii: "e") || s.base[i] == UInt8(ascii: "E") {
            i += 1
            if i < s.end, s.base[i] == UInt8(ascii: "+") || s.base[i] == UInt8(ascii: "-") { i += 1 }
            guard digit(i) else {
                s.pos = start
                _ = try parseNumber(&s)
                return
            }
            while digit(i) { i += 1 }
        }
        s.pos = i
    }
}

extension JSONProjection {
    /// The position of the kept key `key` among ``keys``, if kept.
    @inline(__always)
    func index(of key: String, _ print: KeyPrint) -> Int? {
        if print.length >= 0 {
            for i in prints.indices where prints[i] == print { return i }
            return nil
        }
        return keys.firstIndex(of: key)
    }
}

/// The kinds of the containers a skip is inside: a bit per level, spilling past 64 levels.
/// The containers a value being skipped has open, innermost last.
protocol OpenContainers {
    /// How many are open.
    var depth: Int { get }
    /// Whether the innermost one is an object (else an array).
    var innermostIsObject: Bool { get }
    /// Opens one; `false` when no more fit.
    mutating func push(_ isObject: Bool) -> Bool
    /// Closes the innermost one.
    mutating func pop()
}

/// Up to 64 open containers as bits, innermost in the lowest bit (1: an object).
struct ShallowContainers: OpenContainers {
    private var bits: UInt64 = 0
    private(set) var depth = 0

    @inline(__always)
    mutating func push(_ isObject: Bool) -> Bool {
        guard depth < 64 else { return false }
        bits = (bits << 1) | (isObject ? 1 : 0)
        depth += 1
        return true
    }

    @inline(__always)
    mutating func pop() {
        bits >>= 1
        depth -= 1
    }

    @inline(__always)
    var innermostIsObject: Bool { bits & 1 == 1 }
}

/// Any number of open containers: 64 as bits, the outer ones beyond that in an array.
struct DeepContainers: OpenContainers {
    private var bits: UInt64 = 0
    private var deeper: [Bool] = []
    private(set) var depth = 0

    mutating func push(_ isObject: Bool) -> Bool {
        if depth >= 64 { deeper.append(bits >> 63 == 1) }
        bits = (bits << 1) | (isObject ? 1 : 0)
        depth += 1
        return true
    }

    mutating func pop() {
        bits >>= 1
        depth -= 1
        if depth >= 64, let spilled = deeper.popLast() { bits |= (spilled ? 1 : 0) << 63 }
    }

    var innermostIsObject: Bool { bits & 1 == 1 }
}
