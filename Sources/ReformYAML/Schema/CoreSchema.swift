import ReformSDK

/// The YAML 1.2 core schema: how plain scalars resolve, and what the standard scalar tags accept.
///
/// Only `true`/`false` (three spellings each) are booleans, so YAML 1.1's `yes`, `on`, `no` and
/// `off` stay strings. Integers that overflow 64 bits become doubles.
enum CoreSchema {
    /// The full forms of the standard tags the loader understands.
    enum Tag {
        static let string = "tag:yaml.org,2002:str"
        static let int = "tag:yaml.org,2002:int"
        static let float = "tag:yaml.org,2002:float"
        static let bool = "tag:yaml.org,2002:bool"
        static let null = "tag:yaml.org,2002:null"
        static let map = "tag:yaml.org,2002:map"
        static let seq = "tag:yaml.org,2002:seq"
        static let merge = "tag:yaml.org,2002:merge"
        /// The non-specific tag `!`: a scalar written with it is a string.
        static let nonSpecific = "!"

        /// `!!int` for `tag:yaml.org,2002:int`, any other tag as it is.
        static func shortName(_ tag: String) -> String {
            let prefix = "tag:yaml.org,2002:"
            return tag.hasPrefix(prefix) ? "!!" + tag.dropFirst(prefix.count) : tag
        }
    }

    /// The value of a plain (unquoted, untagged) scalar.
    static func resolvePlain(_ text: String) -> Value {
        if let null = null(text) { return null }
        if let bool = bool(text) { return .bool(bool) }
        if let number = number(text) { return number }
        return .string(text)
    }

    /// `.null` for `null`, `Null`, `NULL`, `~` and the empty string.
    static func null(_ text: String) -> Value? {
        switch text {
        case "", "~", "null", "Null", "NULL": .null
        default: nil
        }
    }

    /// The boolean spelled `true|True|TRUE|false|False|FALSE`.
    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": true
        case "false", "False", "FALSE": false
        default: nil
        }
    }

    /// An integer or a float, by the core schema's patterns.
    static func number(_ text: String) -> Value? {
        if let int = int(text) { return int }
        if let double = float(text) { return .double(double) }
        return nil
    }

    /// `[-+]?[0-9]+`, `0o[0-7]+` or `0x[0-9a-fA-F]+`: `.int`, or `.double` past 64 bits.
    static func int(_ text: String) -> Value? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return nil }
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            if bytes[1] == UInt8(ascii: "o") { return digits(bytes[2...], radix: 8, negative: false) }
            if bytes[1] == UInt8(ascii: "x") { return digits(bytes[2...], radix: 16, negative: false) }
        }
        var body = bytes[...]
        var negative = false
        if let sign = body.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        return digits(body, radix: 10, negative: negative)
    }

    /// The float patterns of the core schema (which include the integer ones), as a `Double`.
    static func float(_ text: String) -> Double? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        guard matchesFloat(Array(text.utf8)) else { return nil }
        return Double(text)
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
    private static func matchesFloat(_ bytes: [UInt8]) -> Bool {
        var i = 0
        func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 48 && bytes[at] <= 57 }
        func skipDigits() -> Int {
            let start = i
            while isDigit(i) { i += 1 }
            return i - start
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard skipDigits() > 0 else { return false }
        } else {
            guard skipDigits() > 0 else { return false }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                _ = skipDigits()
            }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
            guard skipDigits() > 0 else { return false }
        }
        return i == bytes.count
    }

    /// Digits in `radix` as an `.int`, or as a `.double` when they overflow `Int`.
    private static func digits(_ bytes: ArraySlice<UInt8>, radix: Int, negative: Bool) -> Value? {
        guard !bytes.isEmpty else { return nil }
        var magnitude: UInt64 = 0
        var approximate = 0.0
        var overflowed = false
        for byte in bytes {
            guard let digit = digitValue(byte), digit < radix else { return nil }
            approximate = approximate * Double(radix) + Double(digit)
            if !overflowed {
                let (shifted, o1) = magnitude.multipliedReportingOverflow(by: UInt64(radix))
                let (added, o2) = shifted.addingReportingOverflow(UInt64(digit))
                if o1 || o2 { overflowed = true } else { magnitude = added }
            }
        }
        if !overflowed {
            if negative {
                if magnitude <= UInt64(Int.max) { return .int(-Int(magnitude)) }
                if magnitude == UInt64(Int.max) + 1 { return .int(Int.min) }
            } else if magnitude <= UInt64(Int.max) {
                return .int(Int(magnitude))
            }
        }
        if radix == 10, let exact = Double(String(decoding: bytes, as: UTF8.self)) {
            return .double(negative ? -exact : exact)
        }
        return .double(negative ? -approximate : approximate)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
