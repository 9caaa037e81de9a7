import ReformHTTP1

/// The forms in which a server can echo a secret back: in a JSON string, percent-encoded in a
/// URL or a form, and as written (reliability audit D12: a token with `"` or `\` came back
/// JSON-escaped, and lower-case `%2f` escaped the upper-case form, so both reached stderr).
extension Redactor {
    /// `value` as written, percent-encoded (upper- and lower-case hex, `+` or `%20` for a space)
    /// and JSON-escaped (quotes and backslashes; with `\/`; with every non-ASCII character as
    /// `\uXXXX` in either case; as Python's repr writes it).
    static func echoedForms(of value: String) -> [String] {
        var forms: Set<String> = [value]
        for encoded in [PercentEncoding.encode(value), formEncoded(value)] {
            forms.insert(encoded)
            forms.insert(lowerCaseHex(encoded))
        }
        for solidus in [false, true] {
            for unicode in [UnicodeEscapes.none, .lower, .upper] {
                forms.insert(jsonEscaped(value, solidus: solidus, unicode: unicode, singleQuote: false))
            }
        }
        forms.insert(jsonEscaped(value, solidus: false, unicode: .none, singleQuote: true))
        // Python's repr in single quotes: backslashes doubled, double quotes as they are.
        forms.insert(value.replacing("\\", with: "\\\\").replacing("'", with: "\\'"))
        return Array(forms)
    }

    /// How non-ASCII characters are written in a JSON string.
    private enum UnicodeEscapes {
        case none, lower, upper
    }

    /// `application/x-www-form-urlencoded`: a space is `+`.
    private static func formEncoded(_ value: String) -> String {
        PercentEncoding.encode(value) { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: " "):
                true
            default: false
            }
        }.replacing(" ", with: "+")
    }

    /// `%2F` written `%2f`.
    private static func lowerCaseHex(_ encoded: String) -> String {
        var out: [UInt8] = []
        var pending = 0
        for byte in encoded.utf8 {
            if pending > 0, (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) {
                out.append(byte + 32)
            } else {
                out.append(byte)
            }
            pending = byte == UInt8(ascii: "%") ? 2 : max(0, pending - 1)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `value` as the inside of a JSON string.
    private static func jsonEscaped(_ value: String, solidus: Bool, unicode: UnicodeEscapes, singleQuote: Bool) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where solidus: out += "\\/"
            case "'" where singleQuote: out += "\\'"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (scalar.value > 0x7E && unicode != .none) {
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16)
                        let padded = String(repeating: "0", count: 4 - hex.count) + hex
                        out += "\\u" + (unicode == .upper ? padded.uppercased() : padded)
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
