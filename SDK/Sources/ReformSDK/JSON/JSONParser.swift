/// A reusable JSON parser: keeps its scratch storage between documents, so parsing many small
/// documents (NDJSON lines, array elements) allocates only for the values themselves.
///
/// The parser is iterative: nesting depth is bounded by ``JSONLimits/maximumDepth``, never by the
/// thread's stack. A lone UTF-16 surrogate written as a `\u` escape (`"\uD800"`) is accepted and
/// decoded as U+FFFD, as `jq` does; surrogates encoded directly in UTF-8 are rejected.
public struct JSONParser {
    /// The limits every document parsed by this parser must respect.
    public var limits: JSONLimits

    /// One open container; its elements or members are built in place and moved out when it closes.
    @usableFromInline
    internal struct Frame {
        var isObject: Bool
        var elements: [Value]
        var members: [Object.Member]
        /// Where this object's key fingerprints start in ``JSONParser/prints``.
        var printStart: Int
        /// The key read for the member whose value is being parsed, and its fingerprint.
        var key: String
        var keyPrint: KeyPrint
    }

    @usableFromInline internal var frames: [Frame] = []
    /// Fingerprints of the keys of every open object, for the duplicate-key check.
    @usableFromInline internal var prints: [KeyPrint] = []
    /// The member count of the last object closed at each depth: the capacity to reserve for the
    /// next one, exact for the same-shaped records of a stream.
    @usableFromInline internal var capacityHints: [Int] = []
    @usableFromInline internal var scratch: [UInt8] = []
    /// Recently seen short keys, so that repeated keys are neither validated nor allocated again.
    @usableFromInline internal var keyCache: [KeyCacheEntry] = Array(
        repeating: KeyCacheEntry(print: KeyPrint(low: 0, high: 0, length: -1), key: ""), count: 256)

    /// A parser that enforces `limits`.
    public init(limits: JSONLimits = .init()) {
        self.limits = limits
    }

    /// Parses one document that fills `bytes`, apart from surrounding whitespace.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> Value {
        var s = try makeScanner(bytes)
        s.skipWhitespace()
        let value = try parseValue(&s)
        s.skipWhitespace()
        if s.pos < s.end {
            throw s.error("expected end of input after the value", found: true)
        }
        return value
    }

    /// Parses every whitespace-separated document in `bytes`, in order.
    public mutating func parseSequence(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> [Value] {
        var s = try makeScanner(bytes)
        var result: [Value] = []
        s.skipWhitespace()
        while s.pos < s.end {
            result.append(try parseValue(&s))
            s.skipWhitespace()
        }
        return result
    }

    private func makeScanner(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> Scanner {
        if bytes.count > limits.maximumDocumentSize {
            throw JSONError(
                code: .tooLarge,
                message: "document is \(bytes.count) bytes, more than the limit of \(limits.maximumDocumentSize)",
                line: 1, column: 1, offset: 0)
        }
        guard let base = bytes.baseAddress else {
            // An empty buffer may have no address; scan a static empty string instead.
            let empty: StaticString = ""
            return Scanner(base: empty.utf8Start, end: 0)
        }
        return Scanner(base: base.assumingMemoryBound(to: UInt8.self), end: bytes.count)
    }

    // MARK: Values

    /// Parses one value. The innermost open container lives in local variables; only its
    /// suspended parents are kept in ``frames``, so flat records never touch the frame stack.
    @inline(__always)
    private mutating func parseValue(_ s: inout Scanner) throws(JSONError) -> Value {
        frames.removeAll(keepingCapacity: true)
        // `prints[0..<printCount]` are the fingerprints of the open objects' keys; the array
        // only grows, so truncating it when an object closes is a store.
        var printCount = 0
        var depth = 0
        var isObject = false
        var elements: [Value] = []
        var members: [Object.Member] = []
        var key = ""
        var keyPrint = KeyPrint.long
        var printStart = 0
        var value: Value
        nextValue: while true {
            guard s.pos < s.end else { throw s.error("expected a value", found: true) }
            switch s.base[s.pos] {
            case UInt8(ascii: "\""):
                value = .string(try parseString(&s))
            case UInt8(ascii: "{"):
                s.pos += 1
                s.skipWhitespace()
                if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "}") {
                    s.pos += 1
                    value = .object(Object())
                } else {
                    try checkDepth(&s, depth)
                    if depth > 0 {
                        frames.append(
                            Frame(
                                isObject: isObject, elements: elements, members: members, printStart: printStart,
                                key: key, keyPrint: keyPrint))
                        elements = []
                    }
                    members = []
                    members.reserveCapacity(capacityHint(depth))
                    depth += 1
                    isObject = true
                    printStart = printCount
                    (key, keyPrint) = try parseKey(&s)
                    continue nextValue
                }
            case UInt8(ascii: "["):
                s.pos += 1
                s.skipWhitespace()
                if s.pos < s.end, s.base[s.pos] == UInt8(ascii: "]") {
                    s.pos += 1
                    value = .array([])
                } else {
                    try checkDepth(&s, depth)
                    if depth > 0 {
                        frames.append(
                            Frame(
                                isObject: isObject, elements: elements, members: members, printStart: printStart,
                                key: key, keyPrint: keyPrint))
                        members = []
                    }
                    elements = []
                    elements.reserveCapacity(capacityHint(depth))
                    depth += 1
                    isObject = false
                    continue nextValue
                }
            case UInt8(ascii: "t"):
                try s.expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try s.expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try s.expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try parseNumber(&s)
            default:
                throw s.error("expected a value", found: true)
            }

            // Attach the finished value to the open containers, closing those that end here.
            while depth > 0 {
                s.skipWhitespace()
                if isObject {
                    // A repeated key keeps its first position and takes the new value.
                    var duplicate = -1
                    var i = printStart
                    while i < printCount {
                        if prints[i] == keyPrint && (keyPrint.length >= 0 || members[i - printStart].key == key) {
                            duplicate = i - printStart
                            break
                        }
                        i += 1
                    }
                    if duplicate >= 0 {
                        members[duplicate].value = value
                    } else {
                        if printCount < prints.count {
                            prints[printCount] = keyPrint
                        } else {
                            prints.append(keyPrint)
                        }
                        printCount += 1
                        // Move the value in rather than copying it (saves a retain and a release).
                        var moved = Value.null
                        swap(&moved, &value)
                        members.append(Object.Member(key: key, value: moved))
                    }
                    guard s.pos < s.end else {
                        throw s.error("expected ',' or '}' after an object member", found: true)
                    }
                    let c = s.base[s.pos]
                    if c == UInt8(ascii: ",") {
                        s.pos += 1
                        s.skipWhitespace()
                        (key, keyPrint) = try parseKey(&s)
                        continue nextValue
                    } else if c == UInt8(ascii: "}") {
                        s.pos += 1
                        printCount = printStart
                        depth -= 1
                        setCapacityHint(members.count, depth: depth)
                        var object = Object()
                        if members.count > Object.indexThreshold {
                            object.storage = members
                            object.rebuildIndex()
                        } else {
                            object.storage = members
                        }
                        value = .object(object)
                    } else {
                        throw s.error("expected ',' or '}' after an object member", found: true)
                    }
                } else {
                    var moved = Value.null
                    swap(&moved, &value)
                    elements.append(moved)
                    guard s.pos < s.end else {
                        throw s.error("expected ',' or ']' after an array element", found: true)
                    }
                    let c = s.base[s.pos]
                    if c == UInt8(ascii: ",") {
                        s.pos += 1
                        s.skipWhitespace()
                        continue nextValue
                    } else if c == UInt8(ascii: "]") {
                        s.pos += 1
                        depth -= 1
                        setCapacityHint(elements.count, depth: depth)
                        value = .array(elements)
                    } else {
                        throw s.error("expected ',' or ']' after an array element", found: true)
                    }
                }
                if depth > 0 {
                    // Resume the parent container.
                    let parent = frames.removeLast()
                    isObject = parent.isObject
                    elements = parent.elements
                    members = parent.members
                    printStart = parent.printStart
                    key = parent.key
                    keyPrint = parent.keyPrint
                }
            }
            return value
        }
    }

    @inline(__always)
    private func checkDepth(_ s: inout Scanner, _ depth: Int) throws(JSONError) {
        if depth >= limits.maximumDepth {
            s.pos -= 1
            throw JSONError(
                code: .tooDeep, message: "nesting is deeper than the limit of \(limits.maximumDepth) levels",
                location: s.location(of: s.pos), offset: s.pos)
        }
    }

    /// Reads `"key"`, the `:` after it and the whitespace before the value.
    @inline(__always)
    private mutating func parseKey(_ s: inout Scanner) throws(JSONError) -> (String, KeyPrint) {
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: "\"") else {
            throw s.error("expected a string key", found: true)
        }
        let result: (String, KeyPrint)
        if let cached = cachedKey(&s) {
            result = cached
        } else {
            let key = try parseString(&s)
            result = (key, KeyPrint(decoded: key))
        }
        s.skipWhitespace()
        guard s.pos < s.end, s.base[s.pos] == UInt8(ascii: ":") else {
            throw s.error("expected ':' after an object key", found: true)
        }
        s.pos += 1
        s.skipWhitespace()
        return result
    }

    /// A short, escape-free key at the cursor seen before; stores new ones for next time.
    @inline(__always)
    private mutating func cachedKey(_ s: inout Scanner) -> (String, KeyPrint)? {
        let start = s.pos + 1
        let i = s.firstSpecialStringByte(from: start, limit: min(s.end, start + 17))
        guard i < s.end, i - start <= 16, s.base[i] == UInt8(ascii: "\"") else { return nil }
        let length = i - start
        let print = start + 16 <= s.end ? KeyPrint(loading: s.base + start, length) : KeyPrint(s.base + start, length)
        let slot = print.slot
        s.pos = i + 1
        if keyCache[slot].print == print { return (keyCache[slot].key, print) }
        let key = String(decoding: UnsafeBufferPointer(start: s.base + start, count: length), as: UTF8.self)
        keyCache[slot] = KeyCacheEntry(print: print, key: key)
        return (key, print)
    }

    @inline(__always)
    private func capacityHint(_ depth: Int) -> Int {
        depth < capacityHints.count ? capacityHints[depth] : 4
    }

    @inline(__always)
    private mutating func setCapacityHint(_ count: Int, depth: Int) {
        if depth < capacityHints.count {
            capacityHints[depth] = min(count, 64)
        } else if depth == capacityHints.count && depth < 64 {
            capacityHints.append(min(count, 64))
        }
    }

    // MARK: Strings

    /// Reads a string starting at its opening quote.
    @inline(__always)
    private mutating func parseString(_ s: inout Scanner) throws(JSONError) -> String {
        let start = s.pos + 1
        let base = s.base
        let i = s.firstSpecialStringByte(from: start)
        if i < s.end && base[i] == UInt8(ascii: "\"") {
            s.pos = i + 1
            return String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
        }
        return try parseStringSlow(&s, start: start, from: i)
    }

    /// Handles escapes, non-ASCII text (validated here) and errors.
    private mutating func parseStringSlow(_ s: inout Scanner, start: Int, from: Int) throws(JSONError) -> String {
        let base = s.base
        var i = from
        var escaped = false
        scratch.removeAll(keepingCapacity: true)
        while true {
            guard i < s.end else {
                throw JSONError(
                    code: .syntax, message: "unterminated string", location: s.location(of: start - 1),
                    offset: start - 1)
            }
            let c = base[i]
            if c == UInt8(ascii: "\"") {
                s.pos = i + 1
                if escaped {
                    return String(decoding: scratch, as: UTF8.self)
                }
                return String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
            } else if c == UInt8(ascii: "\\") {
                if !escaped {
                    escaped = true
                    scratch.append(contentsOf: UnsafeBufferPointer(start: base + start, count: i - start))
                }
                i = try parseEscape(&s, at: i)
            } else if c < 0x20 {
                s.pos = i
                throw s.error("control character \(hexByte(c, prefix: "U+00")) must be escaped in a string")
            } else if c < 0x80 {
                if escaped { scratch.append(c) }
                i += 1
            } else {
                let length = try s.validateUTF8Sequence(at: i)
                if escaped { scratch.append(contentsOf: UnsafeBufferPointer(start: base + i, count: length)) }
                i += length
            }
        }
    }

    /// Decodes the escape at `i` (a backslash) into ``scratch``; returns the index after it.
    private mutating func parseEscape(_ s: inout Scanner, at i: Int) throws(JSONError) -> Int {
        let base = s.base
        guard i + 1 < s.end else {
            s.pos = i + 1
            throw s.error("unterminated string")
        }
        let e = base[i + 1]
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try s.hex4(at: i + 2)
            var next = i + 6
            if scalar >= 0xD800 && scalar < 0xDC00 {
                // A high surrogate: combine with a following low surrogate escape, if any.
                if next + 5 < s.end, base[next] == UInt8(ascii: "\\"), base[next + 1] == UInt8(ascii: "u"),
                    let low = s.hex4IfValid(at: next + 2), low >= 0xDC00 && low < 0xE000
                {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    next += 6
                } else {
                    scalar = 0xFFFD
                }
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                scalar = 0xFFFD
            }
            appendUTF8(scalar)
            return next
        default:
            s.pos = i
            let shown = e >= 0x21 && e < 0x7F ? "'\\\(Character(Unicode.Scalar(e)))'" : "'\\' followed by \(hexByte(e))"
            throw s.error("invalid escape \(shown) in a string")
        }
        return i + 2
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        if scalar < 0x80 {
            scratch.append(UInt8(scalar))
        } else if scalar < 0x800 {
            scratch.append(UInt8(0xC0 | (scalar >> 6)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        } else if scalar < 0x10000 {
            scratch.append(UInt8(0xE0 | (scalar >> 12)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        } else {
            scratch.append(UInt8(0xF0 | (scalar >> 18)))
            scratch.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    // MARK: Numbers

    /// Reads a number; integral literals that fit in `Int` become `.int`, others `.double`.
    @inline(__always)
    private func parseNumber(_ s: inout Scanner) throws(JSONError) -> Value {
        let base = s.base
        let start = s.pos
        var i = start
        let negative = base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < s.end, base[i] &- UInt8(ascii: "0") < 10 else {
            s.pos = i
            throw s.error("expected a digit after '-'", found: true)
        }
        var mantissa: UInt64 = 0
        var digits = 0
        if base[i] == UInt8(ascii: "0") {
            i += 1
            if i < s.end, base[i] &- UInt8(ascii: "0") < 10 {
                s.pos = i
                throw s.error("a number cannot have leading zeros")
            }
        } else {
            while i < s.end {
                let d = base[i] &- UInt8(ascii: "0")
                if d >= 10 { break }
                if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d) }
                digits += 1
                i += 1
            }
        }
        let integralEnd = i
        var fractionDigits = 0
        var isIntegral = true
        if i < s.end, base[i] == UInt8(ascii: ".") {
            isIntegral = false
            i += 1
            guard i < s.end, base[i] &- UInt8(ascii: "0") < 10 else {
                s.pos = i
                throw s.error("expected a digit after the decimal point", found: true)
            }
            while i < s.end {
                let d = base[i] &- UInt8(ascii: "0")
                if d >= 10 { break }
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    fractionDigits += 1
                    if mantissa != 0 { digits += 1 }
                } else if mantissa == 0 {
                    fractionDigits += 1
                }
                i += 1
            }
            if mantissa == 0 { digits = 0 }
        }
        var exponent = 0
        if i < s.end, base[i] | 0x20 == UInt8(ascii: "e") {
            isIntegral = false
            i += 1
            var negativeExponent = false
            if i < s.end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") {
                negativeExponent = base[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < s.end, base[i] &- UInt8(ascii: "0") < 10 else {
                s.pos = i
                throw s.error("expected a digit in the exponent", found: true)
            }
            while i < s.end {
                let d = base[i] &- UInt8(ascii: "0")
                if d >= 10 { break }
                if exponent < 100_000 { exponent = exponent * 10 + Int(d) }
                i += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        s.pos = i
        if isIntegral && digits <= 19 && integralEnd > start + (negative ? 1 : 0) {
            if negative {
                if mantissa == 0 { return .double(-0.0) }
                if mantissa <= UInt64(Int.max) { return .int(-Int(mantissa)) }
                if mantissa == UInt64(Int.max) + 1 { return .int(Int.min) }
            } else if mantissa <= UInt64(Int.max) {
                return .int(Int(mantissa))
            }
        }
        // Exact fast path: both the digits and the power of ten are exact doubles.
        let power = exponent - fractionDigits
        if digits <= 15 && power >= -22 && power <= 22 {
            var d = Double(mantissa)
            if power >= 0 { d *= JSONParser.powersOfTen[power] } else { d /= JSONParser.powersOfTen[-power] }
            return .double(negative ? -d : d)
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
        let d = Double(text) ?? 0
        if d.isInfinite { return .double(d < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude) }
        return .double(d)
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}

/// A short key packed into two words, for cache look-ups and duplicate checks without comparing
/// strings; keys longer than 16 bytes (or with escapes) all share ``long`` and are compared as strings.
@usableFromInline
internal struct KeyPrint: Equatable {
    var low: UInt64
    var high: UInt64
    var length: Int

    init(low: UInt64, high: UInt64, length: Int) {
        self.low = low
        self.high = high
        self.length = length
    }

    static var long: KeyPrint { KeyPrint(low: 0, high: 0, length: -2) }

    /// The fingerprint of a decoded key (one that had escapes), or ``long``.
    init(decoded key: String) {
        guard key.utf8.count <= 16 else {
            self = .long
            return
        }
        var low: UInt64 = 0
        var high: UInt64 = 0
        for (k, byte) in key.utf8.enumerated() {
            if k < 8 { low |= UInt64(byte) << (8 * UInt64(k)) } else { high |= UInt64(byte) << (8 * UInt64(k - 8)) }
        }
        self.init(low: low, high: high, length: key.utf8.count)
    }

    @inline(__always)
    init(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var k = 0
        while k < length && k < 8 {
            low |= UInt64(bytes[k]) << (8 * UInt64(k))
            k += 1
        }
        while k < length {
            high |= UInt64(bytes[k]) << (8 * UInt64(k - 8))
            k += 1
        }
        self.init(low: low, high: high, length: length)
    }

    /// The fingerprint of the `length` (at most 16) bytes at `bytes`, when 16 bytes are readable there.
    @inline(__always)
    init(loading bytes: UnsafePointer<UInt8>, _ length: Int) {
        let raw = UnsafeRawPointer(bytes)
        var low = raw.loadUnaligned(as: UInt64.self)
        var high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        if length < 8 {
            low &= (1 &<< UInt64(8 * length)) &- 1
            high = 0
        } else if length < 16 {
            high &= (1 &<< UInt64(8 * (length - 8))) &- 1
        }
        self.init(low: low, high: high, length: length)
    }

    /// The key cache slot for this key.
    @inline(__always)
    var slot: Int {
        var h = low &* 0x9E37_79B9_7F4A_7C15
        h ^= (high &+ UInt64(length)) &* 0xC2B2_AE3D_27D4_EB4F
        return Int(truncatingIfNeeded: h >> 56)
    }
}

@usableFromInline
internal struct KeyCacheEntry {
    var print: KeyPrint
    var key: String
}

/// `0xNN` (or with another prefix) for messages.
internal func hexByte(_ byte: UInt8, prefix: String = "0x") -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
    return prefix + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
}

extension JSONError {
    init(code: Code, message: String, location: (line: Int, column: Int), offset: Int) {
        self.init(code: code, message: message, line: location.line, column: location.column, offset: offset)
    }
}

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
    /// a backslash, a control character or a non-ASCII byte; `end` (or a little past `limit`) if none.
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
        while i < end {
            let c = base[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return i }
            i += 1
        }
        return end
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

    mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
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
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
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
