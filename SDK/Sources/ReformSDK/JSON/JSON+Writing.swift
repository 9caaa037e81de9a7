extension JSON {
    /// Appends the compact text of `value` to `buffer`: the bytes `jq -c` (1.6) prints, without
    /// the trailing newline.
    ///
    /// Keys keep their stored order; strings are UTF-8 with only `"`, `\`, control characters and
    /// DEL escaped (`\b \f \n \r \t`, others `\u00XX`). Doubles use the shortest digits that read
    /// back to the same value, in jq's layout (`1e-05`, `1e+17`, `1000000000000000`, `-0`); NaN is
    /// written `null` and infinities as ±`1.7976931348623157e+308`, as jq does. Ints are written
    /// exactly, where jq 1.6 would round those beyond 2^53 to 17 significant digits.
    public static func write(_ value: Value, into buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteSink.stackCapacity) { scratch in
            guard let base = scratch.baseAddress else { return }
            var sink = ByteSink(base: base, capacity: scratch.count)
            sink.value(value, into: &buffer)
            sink.flush(into: &buffer)
        }
    }

    /// Appends the indented text of `value` to `buffer`, as `jq .` prints it with the default
    /// `indent` of 2 (no trailing newline); scalars are written as ``write(_:into:)`` writes them.
    public static func writePretty(_ value: Value, indent: Int = 2, into buffer: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ByteSink.stackCapacity) { scratch in
            guard let base = scratch.baseAddress else { return }
            var sink = ByteSink(base: base, capacity: scratch.count)
            sink.pretty(value, indent: indent, level: 0, into: &buffer)
            sink.flush(into: &buffer)
        }
    }

    /// The compact text of `value`, as ``write(_:into:)`` produces it.
    public static func compactString(_ value: Value) -> String {
        var buffer: [UInt8] = []
        write(value, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// The indented text of `value`, as ``writePretty(_:indent:into:)`` produces it.
    public static func prettyString(_ value: Value, indent: Int = 2) -> String {
        var buffer: [UInt8] = []
        writePretty(value, indent: indent, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}

/// Output staged in a small stack buffer and appended to the caller's array in large pieces, so
/// that writing a record costs a few array appends instead of one per byte.
internal struct ByteSink {
    static let stackCapacity = 1024

    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    @inline(__always)
    mutating func flush(into out: inout [UInt8]) {
        if count > 0 {
            out.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
            count = 0
        }
    }

    /// Makes room for `n` more bytes (`n` at most ``capacity``).
    @inline(__always)
    mutating func reserve(_ n: Int, _ out: inout [UInt8]) {
        if capacity - count < n { flush(into: &out) }
    }

    @inline(__always)
    mutating func byte(_ b: UInt8, _ out: inout [UInt8]) {
        if count == capacity { flush(into: &out) }
        base[count] = b
        count += 1
    }

    @inline(__always)
    mutating func bytes(_ p: UnsafePointer<UInt8>, _ n: Int, _ out: inout [UInt8]) {
        if capacity - count < n {
            flush(into: &out)
            if n > capacity {
                out.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
                return
            }
        }
        (base + count).initialize(from: p, count: n)
        count += n
    }

    @inline(__always)
    mutating func ascii(_ text: StaticString, _ out: inout [UInt8]) {
        bytes(text.utf8Start, text.utf8CodeUnitCount, &out)
    }

    mutating func value(_ value: Value, into out: inout [UInt8]) {
        switch value {
        case .null: ascii("null", &out)
        case .bool(let b): ascii(b ? "true" : "false", &out)
        case .int(let i): int(i, &out)
        case .double(let d): double(d, &out)
        case .string(let s): string(s, &out)
        case .array(let elements):
            byte(UInt8(ascii: "["), &out)
            var first = true
            for element in elements {
                if !first { byte(UInt8(ascii: ","), &out) }
                first = false
                self.value(element, into: &out)
            }
            byte(UInt8(ascii: "]"), &out)
        case .object(let object):
            byte(UInt8(ascii: "{"), &out)
            object.storage.withUnsafeBufferPointer { members in
                for i in members.indices {
                    if i > 0 { byte(UInt8(ascii: ","), &out) }
                    string(members[i].key, &out)
                    byte(UInt8(ascii: ":"), &out)
                    self.value(members[i].value, into: &out)
                }
            }
            byte(UInt8(ascii: "}"), &out)
        }
    }

    mutating func pretty(_ value: Value, indent: Int, level: Int, into out: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            byte(UInt8(ascii: "["), &out)
            var first = true
            for element in elements {
                if !first { byte(UInt8(ascii: ","), &out) }
                first = false
                newline(indent: indent, level: level + 1, &out)
                pretty(element, indent: indent, level: level + 1, into: &out)
            }
            newline(indent: indent, level: level, &out)
            byte(UInt8(ascii: "]"), &out)
        case .object(let object) where !object.isEmpty:
            byte(UInt8(ascii: "{"), &out)
            var first = true
            for member in object.storage {
                if !first { byte(UInt8(ascii: ","), &out) }
                first = false
                newline(indent: indent, level: level + 1, &out)
                string(member.key, &out)
                byte(UInt8(ascii: ":"), &out)
                byte(UInt8(ascii: " "), &out)
                pretty(member.value, indent: indent, level: level + 1, into: &out)
            }
            newline(indent: indent, level: level, &out)
            byte(UInt8(ascii: "}"), &out)
        default:
            self.value(value, into: &out)
        }
    }

    private mutating func newline(indent: Int, level: Int, _ out: inout [UInt8]) {
        byte(UInt8(ascii: "\n"), &out)
        for _ in 0..<(indent * level) { byte(UInt8(ascii: " "), &out) }
    }

    // MARK: Strings

    @inline(__always)
    mutating func string(_ string: String, _ out: inout [UInt8]) {
        byte(UInt8(ascii: "\""), &out)
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { escaped($0, &out) }
        if done == nil {
            var copy = string
            copy.withUTF8 { escaped($0, &out) }
        }
        byte(UInt8(ascii: "\""), &out)
    }

    @inline(__always)
    private mutating func escaped(_ text: UnsafeBufferPointer<UInt8>, _ out: inout [UInt8]) {
        guard let p = text.baseAddress else { return }
        let n = text.count
        var runStart = 0
        var i = 0
        while i < n {
            // Eight bytes at a time: flag '"', '\\', DEL and bytes below 0x20.
            if i + 8 <= n {
                let x = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let quote = x ^ (ones &* 0x22)
                let backslash = x ^ (ones &* 0x5C)
                let delete = x ^ (ones &* 0x7F)
                let hits =
                    (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((delete &- ones) & ~delete)
                        | ((x &- ones &* 0x20) & ~x)) & (ones &* 0x80)
                if hits == 0 {
                    i += 8
                    continue
                }
                i += hits.trailingZeroBitCount / 8
            }
            let c = p[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c == 0x7F {
                if i > runStart { bytes(p + runStart, i - runStart, &out) }
                escape(c, &out)
                runStart = i + 1
            }
            i += 1
        }
        if n > runStart { bytes(p + runStart, n - runStart, &out) }
    }

    private mutating func escape(_ c: UInt8, _ out: inout [UInt8]) {
        reserve(6, &out)
        base[count] = UInt8(ascii: "\\")
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): base[count + 1] = c
        case 0x08: base[count + 1] = UInt8(ascii: "b")
        case 0x0C: base[count + 1] = UInt8(ascii: "f")
        case 0x0A: base[count + 1] = UInt8(ascii: "n")
        case 0x0D: base[count + 1] = UInt8(ascii: "r")
        case 0x09: base[count + 1] = UInt8(ascii: "t")
        default:
            let hex: StaticString = "0123456789abcdef"
            base[count + 1] = UInt8(ascii: "u")
            base[count + 2] = UInt8(ascii: "0")
            base[count + 3] = UInt8(ascii: "0")
            base[count + 4] = hex.utf8Start[Int(c >> 4)]
            base[count + 5] = hex.utf8Start[Int(c & 0xF)]
            count += 6
            return
        }
        count += 2
    }

    // MARK: Numbers

    @inline(__always)
    mutating func int(_ value: Int, _ out: inout [UInt8]) {
        reserve(20, &out)
        if value >= 0 && value < 10 {
            base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
            count += 1
            return
        }
        var magnitude = value.magnitude
        var digits = 0
        var probe = magnitude
        repeat {
            digits += 1
            probe /= 10
        } while probe != 0
        if value < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var i = count + digits
        count = i
        repeat {
            i -= 1
            base[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
    }

    /// Writes a double as jq 1.6 does: shortest round-trip digits, exponent form when the decimal
    /// point would sit more than 3 places left of the digits or more than 15 right of them.
    mutating func double(_ value: Double, _ out: inout [UInt8]) {
        if value.isNaN {
            ascii("null", &out)
            return
        }
        let d = value.isInfinite ? (value < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude) : value
        if d == d.rounded(.towardZero) && d.magnitude < 1e15 {
            // Integral and short: the decimal integer is what jq prints (and `-0` for negative zero).
            if d == 0 && d.sign == .minus { byte(UInt8(ascii: "-"), &out) }
            int(Int(d), &out)
            return
        }
        // Split Swift's shortest representation into digits and a decimal point position, so
        // that the value is 0.DIGITS × 10^decimalPoint.
        var digits: [UInt8] = []
        digits.reserveCapacity(24)
        var decimalPoint = 0
        var seenPoint = false
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        for c in d.magnitude.description.utf8 {
            if inExponent {
                if c == UInt8(ascii: "-") {
                    exponentSign = -1
                } else if c != UInt8(ascii: "+") {
                    exponent = exponent * 10 + Int(c &- UInt8(ascii: "0"))
                }
            } else if c == UInt8(ascii: "e") {
                inExponent = true
            } else if c == UInt8(ascii: ".") {
                seenPoint = true
            } else if c == UInt8(ascii: "0") && digits.isEmpty {
                if seenPoint { decimalPoint -= 1 }
            } else {
                digits.append(c)
                if !seenPoint { decimalPoint += 1 }
            }
        }
        decimalPoint += exponentSign * exponent
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        guard let first = digits.first else {
            byte(UInt8(ascii: "0"), &out)
            return
        }
        if d.sign == .minus { byte(UInt8(ascii: "-"), &out) }
        if decimalPoint <= -4 || decimalPoint > digits.count + 15 {
            byte(first, &out)
            if digits.count > 1 {
                byte(UInt8(ascii: "."), &out)
                for c in digits.dropFirst() { byte(c, &out) }
            }
            byte(UInt8(ascii: "e"), &out)
            var e = decimalPoint - 1
            if e < 0 {
                byte(UInt8(ascii: "-"), &out)
                e = -e
            } else {
                byte(UInt8(ascii: "+"), &out)
            }
            if e < 10 { byte(UInt8(ascii: "0"), &out) }
            int(e, &out)
        } else if decimalPoint <= 0 {
            byte(UInt8(ascii: "0"), &out)
            byte(UInt8(ascii: "."), &out)
            for _ in 0..<(-decimalPoint) { byte(UInt8(ascii: "0"), &out) }
            for c in digits { byte(c, &out) }
        } else if decimalPoint >= digits.count {
            for c in digits { byte(c, &out) }
            for _ in 0..<(decimalPoint - digits.count) { byte(UInt8(ascii: "0"), &out) }
        } else {
            for c in digits[..<decimalPoint] { byte(c, &out) }
            byte(UInt8(ascii: "."), &out)
            for c in digits[decimalPoint...] { byte(c, &out) }
        }
    }
}
