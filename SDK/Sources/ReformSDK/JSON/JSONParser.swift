/// A reusable JSON parser: keeps its scratch storage between documents, so parsing many small
/// documents (NDJSON lines, array elements) allocates only for the values themselves.
///
/// The parser is iterative: nesting depth is bounded by ``JSONLimits/maximumDepth``, never by the
/// thread's stack. A lone UTF-16 surrogate written as a `\u` escape (`"\uD800"`) is accepted and
/// decoded as U+FFFD, as `jq` does; surrogates encoded directly in UTF-8 are rejected.
@frozen
public struct JSONParser {
    /// The limits every document parsed by this parser must respect.
    public var limits: JSONLimits

    /// One open container; its elements or members are built in place and moved out when it closes.
    @frozen @usableFromInline
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
    @usableFromInline internal var keyCache: [KeyCacheEntry]

    /// A parser that enforces `limits`.
    public init(limits: JSONLimits = .init()) {
        self.limits = limits
        keyCache = Array(repeating: KeyCacheEntry(print: KeyPrint(low: 0, high: 0, length: -1), key: ""), count: 256)
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

    /// Parses one document as ``parse(_:)`` does; `nil` when it is invalid, the error dropped.
    ///
    /// For per-record code that only needs to know whether a value parses: a caller of
    /// ``parse(_:)`` outside this module holds room for a thrown ``JSONError``, whose layout (the
    /// SDK is built with library evolution) is looked up at run time on every call into that caller.
    public mutating func parsedValue(_ bytes: UnsafeRawBufferPointer) -> Value? {
        try? parse(bytes)
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

    internal func makeScanner(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> Scanner {
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
    internal mutating func parseValue(_ s: inout Scanner) throws(JSONError) -> Value {
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
        // Past ``ObjectKeyIndex/threshold`` members, the current object's keys are hashed
        // (`indexed`); a suspended parent's index waits in `suspendedIndexes` with its depth.
        var keyIndex = ObjectKeyIndex()
        var indexed = false
        var suspendedIndexes: [(depth: Int, keys: ObjectKeyIndex)] = []
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
                        if indexed {
                            suspendedIndexes.append((depth, keyIndex))
                            keyIndex = ObjectKeyIndex()
                            indexed = false
                        }
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
                        if indexed {
                            suspendedIndexes.append((depth, keyIndex))
                            keyIndex = ObjectKeyIndex()
                            indexed = false
                        }
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
                    if indexed {
                        duplicate = keyIndex.position(of: key, keyPrint, orAdd: members.count) ?? -1
                    } else {
                        var i = printStart
                        while i < printCount {
                            if prints[i] == keyPrint && (keyPrint.length >= 0 || members[i - printStart].key == key) {
                                duplicate = i - printStart
                                break
                            }
                            i += 1
                        }
                    }
                    if duplicate >= 0 {
                        members[duplicate].value = value
                    } else {
                        if !indexed {
                            if printCount < prints.count {
                                prints[printCount] = keyPrint
                            } else {
                                prints.append(keyPrint)
                            }
                            printCount += 1
                        }
                        // Move the value in rather than copying it (saves a retain and a release).
                        var moved = Value.null
                        swap(&moved, &value)
                        members.append(Object.Member(key: key, value: moved))
                        if !indexed && members.count == ObjectKeyIndex.threshold {
                            // Scanning every earlier key made a large object quadratic (audit r2 M5).
                            keyIndex = ObjectKeyIndex(members, prints: prints[printStart..<printCount])
                            indexed = true
                        }
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
                        if indexed {
                            keyIndex = ObjectKeyIndex()
                            indexed = false
                        }
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
                    if let last = suspendedIndexes.last, last.depth == depth {
                        keyIndex = suspendedIndexes.removeLast().keys
                        indexed = true
                    }
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

    /// The message of a ``JSONError/Code/tooDeep`` error for `limit`.
    internal static func tooDeepMessage(_ limit: Int) -> String {
        "nesting is deeper than the limit of \(limit) levels"
    }

    @inline(__always)
    internal func checkDepth(_ s: inout Scanner, _ depth: Int) throws(JSONError) {
        if depth >= limits.maximumDepth {
            s.pos -= 1
            throw JSONError(
                code: .tooDeep, message: JSONParser.tooDeepMessage(limits.maximumDepth),
                location: s.location(of: s.pos), offset: s.pos)
        }
    }

    /// Reads `"key"`, the `:` after it and the whitespace before the value.
    @inline(__always)
    internal mutating func parseKey(_ s: inout Scanner) throws(JSONError) -> (String, KeyPrint) {
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
    mutating func parseString(_ s: inout Scanner) throws(JSONError) -> String {
        let start = s.pos + 1
        let base = s.base
        let i = s.firstSpecialStringByte(from: start)
        if i < s.end && base[i] == UInt8(ascii: "\"") {
            s.pos = i + 1
            return String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
        }
        if i < s.end && base[i] >= 0x80 {
            // Non-ASCII text without escapes: one pass to the closing quote, then the standard
            // library validates and copies in one go. Anything else takes the slow path, which
            // also says where invalid UTF-8 is.
            let close = s.firstQuoteBackslashOrControl(from: i)
            if close < s.end && base[close] == UInt8(ascii: "\"") {
                let bytes = UnsafeBufferPointer(start: base + start, count: close - start)
                if let text = try? UTF8Span(validating: bytes.span) {
                    s.pos = close + 1
                    return String(copying: text)
                }
            }
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
    internal mutating func parseEscape(_ s: inout Scanner, at i: Int) throws(JSONError) -> Int {
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
    internal func parseNumber(_ s: inout Scanner) throws(JSONError) -> Value {
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
