import ReformEngine

/// A JSON value as a generator writes it: numbers keep the exact text they were drawn as, and
/// strings and whitespace are written in any of the forms JSON allows.
enum GeneratedJSON: Sendable {
    case null
    case bool(Bool)
    /// A number as its JSON text (`-0`, `1E+2`, `2.50`).
    case number(String)
    case string(String)
    case array([GeneratedJSON])
    /// Members in order; a key may repeat.
    case object([(String, GeneratedJSON)])

    /// Number texts that tell number handlers apart.
    static let numberForms = [
        "0", "-0", "1", "-17", "7", "42", "120", "999", "1000", "1.5", "0.1", "2.50", "5.0", "-0.0", "1e2", "1E+2", "1.0e-3", "-1.5e-3",
        "31.2", "31.25", "99.5", "123456789012.34567", "99999999999999.9", "0.000001", "9007199254740993", "9007199254740992",
        "1234567890123456789", "-9223372036854775808", "9223372036854775807", "9223372036854775808", "18446744073709551616",
        "100000000000000000000000", "1e308", "1.7976931348623157e308", "1e-320", "3.141592653589793238462643383279", "1e15",
        "123456789012345.0", "1234567890123456.0",
    ]

    /// Texts that tell string handlers apart: escapes, non-ASCII, numbers and dates as text.
    static let textForms = [
        "", "plain", "shanghai", "y", "dup", "a", "t", "x", "low", "high", "上海", "静安寺 · 上海", "é", "🏠", "esc \"q\"", "back\\slash",
        "line\nfeed", "tab\there", "https://x.example/a", "del \u{7F}", "nul \u{0}", "  42 ", "42", "-3", "12.5", "1e2", "abc", "true",
        "yes", "null", "2024-05-01", "=1+2", "{name}", "a, b", "\u{2028}sep", "\u{FEFF}bom",
    ]

    /// A number, mostly from ``numberForms``, else a random integer or fraction.
    static func number(using random: inout some RandomNumberGenerator) -> GeneratedJSON {
        .number(numberText(using: &random))
    }

    /// A number's text.
    static func numberText(using random: inout some RandomNumberGenerator) -> String {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return String(Int.random(in: -100_000...100_000, using: &random))
        case 1: return String(Double.random(in: -2000...2000, using: &random))
        default: return numberForms.randomElement(using: &random) ?? "0"
        }
    }

    /// A string, mostly from ``textForms``, else random characters, sometimes a long run of them.
    static func text(using random: inout some RandomNumberGenerator) -> String {
        if random.chance(3) {
            let alphabet = Array("abcxyz XYZ019_-.:/\\\"'é上海🏠\t\n{}?")
            let count = random.chance(10) ? Int.random(in: 200...600, using: &random) : Int.random(in: 1...12, using: &random)
            return String((0..<count).map { _ in alphabet.randomElement(using: &random) ?? "a" })
        }
        return textForms.randomElement(using: &random) ?? ""
    }

    /// Any value, nesting at most `depth` levels below this one.
    static func any(depth: Int, using random: inout some RandomNumberGenerator) -> GeneratedJSON {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(random.chance(2))
        case 2, 3: return number(using: &random)
        case 4: return .string(text(using: &random))
        case 5: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in any(depth: depth - 1, using: &random) })
        default:
            return .object(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    (["k", "city", "lat", "id", "x"].randomElement(using: &random) ?? "k", any(depth: depth - 1, using: &random))
                })
        }
    }

    /// Arrays and objects nested `levels` deep (the value itself counting as one).
    static func nested(_ levels: Int, using random: inout some RandomNumberGenerator) -> GeneratedJSON {
        guard levels > 0 else { return number(using: &random) }
        let inner = nested(levels - 1, using: &random)
        return random.chance(2) ? .array([inner]) : .object([("x", inner)])
    }

    /// The value's JSON text: with whitespace between tokens when `spaced`, strings escaped in
    /// any allowed form.
    func text(spaced: Bool, using random: inout some RandomNumberGenerator) -> String {
        var out = ""
        write(into: &out, spaced: spaced, using: &random)
        return out
    }

    private func write(into out: inout String, spaced: Bool, using random: inout some RandomNumberGenerator) {
        let gap = spaced ? [" ", "", "  ", "\t"].randomElement(using: &random) ?? " " : ""
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): GeneratedJSON.quote(text, into: &out, using: &random)
        case .array(let elements):
            out += "[" + gap
            for (index, element) in elements.enumerated() {
                if index > 0 { out += gap + "," + gap }
                element.write(into: &out, spaced: spaced, using: &random)
            }
            out += gap + "]"
        case .object(let members):
            out += "{" + gap
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += gap + "," + gap }
                GeneratedJSON.quote(key, into: &out, using: &random, escapingOthers: random.chance(30))
                out += gap + ":" + gap
                value.write(into: &out, spaced: spaced, using: &random)
            }
            out += gap + "}"
        }
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, and (now and
    /// then, or always when `escapingOthers`) `/` as `\/` and other characters as `\uXXXX`.
    static func quote(
        _ text: String, into out: inout String, using random: inout some RandomNumberGenerator, escapingOthers: Bool = false
    ) {
        let others = escapingOthers || random.chance(5)
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += random.chance(3) ? "\\u000A" : "\\n"
            case "\t": out += "\\t"
            case "/" where others && random.chance(2): out += "\\/"
            case _ where scalar.value < 0x20: out += unicodeEscape(scalar.value, upper: random.chance(2))
            case _ where others && (scalar.value > 0x7E || random.chance(8)):
                if scalar.value > 0xFFFF {
                    let value = scalar.value - 0x10000
                    out += unicodeEscape(0xD800 + (value >> 10), upper: false) + unicodeEscape(0xDC00 + (value & 0x3FF), upper: false)
                } else {
                    out += unicodeEscape(scalar.value, upper: random.chance(2))
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    private static func unicodeEscape(_ value: UInt32, upper: Bool) -> String {
        let digits = Array(upper ? "0123456789ABCDEF" : "0123456789abcdef")
        return "\\u" + String((0..<4).map { digits[Int((value >> (12 - 4 * UInt32($0))) & 0xF)] })
    }
}
