/// Numbers written as decimal text (`42`, `-1.5e3`), read for `convert: int` and `convert:
/// double` without Swift's extras (`0x10`, `nan`, `inf`) and, for whole numbers, exactly: text
/// is never rounded through a double, so `-9223372036854775809` is out of range rather than
/// `Int.min` (reliability audit r2 L12).
enum DecimalText {
    /// What text holds when read as a whole number.
    enum Whole: Equatable {
        /// The number.
        case value(Int)
        /// Not decimal number text at all.
        case notANumber
        /// A number with a fraction (`1.5`, `1e-3`).
        case fraction
        /// A whole number past `Int.min...Int.max`.
        case outOfRange
    }

    /// The parts of decimal number text: sign, digits (integral then fraction) and the power of
    /// ten that scales them.
    private struct Parts {
        var negative = false
        var digits: [UInt8] = []
        var scale = 0
    }

    /// Whether `text` is decimal number text: an optional sign, digits with an optional point
    /// (`12`, `1.5`, `.5`, `5.`) and an optional exponent (`e3`, `E-2`).
    static func isDecimal(_ text: Substring) -> Bool { parts(text) != nil }

    /// `text` read as a whole number, exactly.
    static func whole(_ text: Substring) -> Whole {
        guard var parts = parts(text) else { return .notANumber }
        if let first = parts.digits.firstIndex(where: { $0 != 0 }) {
            parts.digits.removeFirst(first)
        } else {
            return .value(0)  // every digit zero, whatever the exponent (`-0`, `0e999`)
        }
        if parts.scale < 0 {
            // The digits the scale puts after the point must be zeros.
            let after = -parts.scale
            guard after < parts.digits.count, parts.digits.suffix(after).allSatisfy({ $0 == 0 }) else { return .fraction }
            parts.digits.removeLast(after)
        } else if parts.digits.count + parts.scale > 19 {
            return .outOfRange  // 20 digits starting with a non-zero one exceed Int.max
        } else {
            parts.digits.append(contentsOf: repeatElement(0, count: parts.scale))
        }
        guard parts.digits.count <= 19 else { return .outOfRange }
        var magnitude: UInt64 = 0
        for digit in parts.digits { magnitude = magnitude * 10 + UInt64(digit) }  // below 10^19: no overflow
        if parts.negative {
            guard magnitude <= UInt64(Int.max) + 1 else { return .outOfRange }
            return .value(magnitude == UInt64(Int.max) + 1 ? .min : -Int(magnitude))
        }
        guard magnitude <= UInt64(Int.max) else { return .outOfRange }
        return .value(Int(magnitude))
    }

    private static func parts(_ text: Substring) -> Parts? {
        var out = Parts()
        var bytes = text.utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            out.negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var sawPoint = false
        var fractionDigits = 0
        while let byte = bytes.first {
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                out.digits.append(byte - UInt8(ascii: "0"))
                if sawPoint { fractionDigits += 1 }
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                break
            }
            bytes = bytes.dropFirst()
        }
        guard !out.digits.isEmpty else { return nil }
        var exponent = 0
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            var negative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                negative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard let first = bytes.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
            while let byte = bytes.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                // Capped: past a million the answer (out of range, a fraction or zero) is the same.
                exponent = Swift.min(exponent * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000)
                bytes = bytes.dropFirst()
            }
            if negative { exponent = -exponent }
        }
        guard bytes.isEmpty else { return nil }
        out.scale = exponent - fractionDigits
        return out
    }
}
