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
        switch value {
        case .null: appendASCII("null", into: &buffer)
        case .bool(let b): appendASCII(b ? "true" : "false", into: &buffer)
        case .int(let i): writeInt(i, into: &buffer)
        case .double(let d): writeDouble(d, into: &buffer)
        case .string(let s): writeString(s, into: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                write(element, into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            buffer.append(UInt8(ascii: "{"))
            var first = true
            for member in object.storage {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                writeString(member.key, into: &buffer)
                buffer.append(UInt8(ascii: ":"))
                write(member.value, into: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
    }

    /// Appends the indented text of `value` to `buffer`, as `jq .` prints it with the default
    /// `indent` of 2 (no trailing newline); scalars are written as ``write(_:into:)`` writes them.
    public static func writePretty(_ value: Value, indent: Int = 2, into buffer: inout [UInt8]) {
        writePretty(value, indent: indent, level: 0, into: &buffer)
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

    private static func writePretty(_ value: Value, indent: Int, level: Int, into buffer: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            buffer.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                newline(indent: indent, level: level + 1, into: &buffer)
                writePretty(element, indent: indent, level: level + 1, into: &buffer)
            }
            newline(indent: indent, level: level, into: &buffer)
            buffer.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            buffer.append(UInt8(ascii: "{"))
            var first = true
            for member in object.storage {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                newline(indent: indent, level: level + 1, into: &buffer)
                writeString(member.key, into: &buffer)
                buffer.append(UInt8(ascii: ":"))
                buffer.append(UInt8(ascii: " "))
                writePretty(member.value, indent: indent, level: level + 1, into: &buffer)
            }
            newline(indent: indent, level: level, into: &buffer)
            buffer.append(UInt8(ascii: "}"))
        default:
            write(value, into: &buffer)
        }
    }

    private static func newline(indent: Int, level: Int, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\n"))
        buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    @inline(__always)
    private static func appendASCII(_ text: StaticString, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: Strings

    @inline(__always)
    internal static func writeString(_ string: String, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { writeEscaped($0, into: &buffer) }
        if done == nil {
            var copy = string
            copy.withUTF8 { writeEscaped($0, into: &buffer) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        var runStart = 0
        var i = 0
        let count = bytes.count
        while i < count {
            let c = bytes[i]
            if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c == 0x7F {
                if i > runStart { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                appendEscape(c, into: &buffer)
                runStart = i + 1
            }
            i += 1
        }
        if count > runStart { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
    }

    private static func appendEscape(_ c: UInt8, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\\"))
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(c)
        case 0x08: buffer.append(UInt8(ascii: "b"))
        case 0x0C: buffer.append(UInt8(ascii: "f"))
        case 0x0A: buffer.append(UInt8(ascii: "n"))
        case 0x0D: buffer.append(UInt8(ascii: "r"))
        case 0x09: buffer.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            let digits = hex.utf8Start
            buffer.append(UInt8(ascii: "u"))
            buffer.append(UInt8(ascii: "0"))
            buffer.append(UInt8(ascii: "0"))
            buffer.append(digits[Int(c >> 4)])
            buffer.append(digits[Int(c & 0xF)])
        }
    }

    // MARK: Numbers

    @inline(__always)
    internal static func writeInt(_ value: Int, into buffer: inout [UInt8]) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var i = 20
            repeat {
                i -= 1
                digits[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 { buffer.append(UInt8(ascii: "-")) }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i..<20]))
        }
    }

    /// Writes a double as jq 1.6 does: shortest round-trip digits, exponent form when the decimal
    /// point would sit more than 3 places left of the digits or more than 15 right of them.
    internal static func writeDouble(_ value: Double, into buffer: inout [UInt8]) {
        if value.isNaN {
            appendASCII("null", into: &buffer)
            return
        }
        let d = value.isInfinite ? (value < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude) : value
        if d == d.rounded(.towardZero) && d.magnitude < 1e15 {
            // Integral and short: the decimal integer is what jq prints (and `-0` for negative zero).
            if d == 0 && d.sign == .minus { buffer.append(UInt8(ascii: "-")) }
            writeInt(Int(d), into: &buffer)
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
                if c == UInt8(ascii: "-") { exponentSign = -1 } else if c != UInt8(ascii: "+") {
                    exponent = exponent * 10 + Int(c - UInt8(ascii: "0"))
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
        if d.sign == .minus { buffer.append(UInt8(ascii: "-")) }
        if decimalPoint <= -4 || decimalPoint > digits.count + 15 {
            buffer.append(digits[0])
            if digits.count > 1 {
                buffer.append(UInt8(ascii: "."))
                buffer.append(contentsOf: digits[1...])
            }
            buffer.append(UInt8(ascii: "e"))
            var e = decimalPoint - 1
            if e < 0 {
                buffer.append(UInt8(ascii: "-"))
                e = -e
            } else {
                buffer.append(UInt8(ascii: "+"))
            }
            if e < 10 { buffer.append(UInt8(ascii: "0")) }
            writeInt(e, into: &buffer)
        } else if decimalPoint <= 0 {
            buffer.append(UInt8(ascii: "0"))
            buffer.append(UInt8(ascii: "."))
            buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -decimalPoint))
            buffer.append(contentsOf: digits)
        } else if decimalPoint >= digits.count {
            buffer.append(contentsOf: digits)
            buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: decimalPoint - digits.count))
        } else {
            buffer.append(contentsOf: digits[..<decimalPoint])
            buffer.append(UInt8(ascii: "."))
            buffer.append(contentsOf: digits[decimalPoint...])
        }
    }
}
