import ReformSDK

/// How ``YAMLWriter`` spells numbers and strings so that they read back unchanged.
enum ScalarStyle {
    /// A double that reads back as the same double: `.inf`, `-.inf`, `.nan`, or digits with a `.` or exponent.
    static func double(_ d: Double) -> String {
        if d.isNaN { return ".nan" }
        if d.isInfinite { return d < 0 ? "-.inf" : ".inf" }
        // Swift prints the shortest text that reads back exactly: `1.0`, `1e-05`, `1e+16`.
        return d.description
    }

    /// A mapping key: plain when safe, otherwise double-quoted (never a block scalar).
    static func key(_ s: String) -> String {
        isPlainSafe(s) ? s : doubleQuoted(s)
    }

    /// A string value: plain when safe, a literal block for multi-line text that one can hold
    /// exactly, otherwise double-quoted.
    static func string(_ s: String, indent: Int) -> String {
        if isPlainSafe(s) { return s }
        if let literal = literalBlock(s, indent: indent) { return literal }
        return doubleQuoted(s)
    }

    /// Whether `s` written plain reads back as the same string, in block context at any position.
    static func isPlainSafe(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, let last = s.unicodeScalars.last else { return false }
        guard CoreSchema.resolvePlain(s).stringValue != nil else { return false }
        if first == " " || last == " " || last == ":" { return false }
        if "-?:,[]{}#&*!|>'\"%@`".unicodeScalars.contains(first) { return false }
        if s.hasPrefix("...") || s.hasPrefix("<<") { return false }
        if s.contains(": ") || s.contains(" #") { return false }
        return s.unicodeScalars.allSatisfy(isPlainCharacter)
    }

    /// Printable, not a line break or tab, not a byte order mark.
    private static func isPlainCharacter(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x20...0x7E: true
        case 0xA0...0xD7FF: c.value != 0x2028 && c.value != 0x2029
        case 0xE000...0xFFFD: c.value != 0xFEFF
        case 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// `|`, `|-` or `|+` and the lines indented by `indent`, when that reads back exactly.
    ///
    /// A block cannot start with a space or a line break (its indentation would be misread), nor
    /// hold tabs or spaces at a line's end, carriage returns or unprintable characters.
    private static func literalBlock(_ s: String, indent: Int) -> String? {
        guard s.contains("\n"), let first = s.unicodeScalars.first, first != " ", first != "\n", first != "\t" else {
            return nil
        }
        let lines = s.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines {
            if let last = line.unicodeScalars.last, last == " " || last == "\t" { return nil }
            if !line.unicodeScalars.allSatisfy({ isPlainCharacter($0) || $0 == "\t" }) { return nil }
        }
        let trailingBreaks = s.unicodeScalars.reversed().prefix { $0 == "\n" }.count
        let chomping = trailingBreaks == 0 ? "-" : trailingBreaks == 1 ? "" : "+"
        let pad = String(repeating: " ", count: max(indent, 1))
        let body = trailingBreaks == 0 ? lines[...] : lines.dropLast()
        var out = "|\(chomping)"
        for line in body {
            out += "\n"
            if !line.isEmpty { out += pad + line }
        }
        return out
    }

    /// `s` in double quotes, with escapes for quotes, backslashes and every character that is not
    /// printable (or would be folded) inside quotes.
    static func doubleQuoted(_ s: String) -> String {
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            case "\u{07}": out += "\\a"
            case "\u{08}": out += "\\b"
            case "\u{0B}": out += "\\v"
            case "\u{0C}": out += "\\f"
            case "\u{1B}": out += "\\e"
            case "\u{85}": out += "\\N"
            case "\u{2028}": out += "\\L"
            case "\u{2029}": out += "\\P"
            default:
                if c.value < 0x20 || c.value == 0x7F || (0x80...0x9F).contains(c.value) || c.value == 0xFEFF
                    || c.value == 0xFFFE || c.value == 0xFFFF
                {
                    out += c.value <= 0xFF ? "\\x" + hex(c.value, width: 2) : "\\u" + hex(c.value, width: 4)
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out + "\""
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
