public import ReformSDK

/// A type conversion applied to one value: `int`, `double`, `bool`, `string` or `date`.
///
/// Conversions accept the obvious spellings (`"42"` → 42, `"yes"`/`"1"` → true, epoch seconds or
/// ISO 8601 text → date) and reject anything else with a message naming the value; `null` stays
/// `null` so that optional fields pass through.
public enum Conversion: String, Sendable, CaseIterable {
    /// A whole number: from an int, an integral double, or decimal text (`12`, `-3`, `1.0`, `2e3`,
    /// read exactly); out of the 64-bit range, with a fraction, `0x10` or `nan` is an error.
    case int
    /// A number: from an int, a double, or decimal number text; `0x10`, `nan`, `inf` and text
    /// beyond the largest double (`1e400`) are errors.
    case double
    /// `true`/`false`: from a bool, 0/1, or `true|false|yes|no|on|off|1|0` text (any case).
    case bool
    /// Text: numbers and bools written as JSON writes them (`100.0` → `"100"`, `1e15` →
    /// `"1000000000000000"`, `-0.0` → `"-0"`, `1e300` → `"1e+300"`).
    case string
    /// An ISO 8601 UTC date-time (`2024-05-01T10:00:00Z`) from ISO 8601 text or epoch seconds;
    /// a date-only text stays a date (`2024-05-01`).
    case date

    /// Converts `value`, or throws a `RecordError` with code `conversion` naming `key`.
    public func apply(_ value: Value, key: String) throws(RecordError) -> Value {
        switch (self, value) {
        case (_, .null): return .null
        case (.int, .int): return value
        case (.int, .double(let d)):
            guard d.isFinite, d.rounded() == d else { throw failure(value, key, d.isFinite ? "it has a fraction" : nil) }
            // -2^63 as a double is also what -9223372036854775809 reads as (an exact Int.min is
            // an int), so the range is symmetric: out of range both ways, never rounded into it.
            guard d > -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0 else {
                throw failure(value, key, Conversion.outOfRange)
            }
            return .int(Int(d))
        case (.int, .string(let s)):
            switch DecimalText.whole(s.trimmingSpaces) {
            case .value(let i): return .int(i)
            case .notANumber: throw failure(value, key)
            case .fraction: throw failure(value, key, "it has a fraction")
            case .outOfRange: throw failure(value, key, Conversion.outOfRange)
            }
        case (.int, .bool(let b)): return .int(b ? 1 : 0)
        case (.double, .int(let i)): return .double(Double(i))
        case (.double, .double): return value
        case (.double, .string(let s)):
            // Decimal text only: Swift's `Double("0x10")`, `"nan"` and `"inf"` are no JSON number.
            guard DecimalText.isDecimal(s.trimmingSpaces), let d = Double(s.trimmingSpaces) else { throw failure(value, key) }
            guard d.isFinite else { throw failure(value, key, "it is beyond the largest double (about 1.8e308)") }
            return .double(d)
        case (.bool, .bool): return value
        case (.bool, .int(let i)) where i == 0 || i == 1: return .bool(i == 1)
        case (.bool, .string(let s)):
            switch s.trimmingSpaces.lowercased() {
            case "true", "yes", "on", "1": return .bool(true)
            case "false", "no", "off", "0": return .bool(false)
            default: throw failure(value, key)
            }
        case (.string, .string): return value
        case (.string, .int(let i)): return .string(String(i))
        // As a template or a cell prints it: the JSON writer's text (`1000000000000000`, not
        // Swift's `1000000000000000.0`), whatever the kind a fast path read it back as.
        case (.string, .double): return .string(value.plainText)
        case (.string, .bool(let b)): return .string(b ? "true" : "false")
        case (.date, _):
            guard let date = CivilDate.parse(value) else { throw failure(value, key, CivilDate.problem(with: value)) }
            return .string(date.iso8601)
        default:
            throw failure(value, key)
        }
    }

    private static let outOfRange = "it is outside the 64-bit integer range (±9223372036854775807)"

    /// The conversion's error; `reason` (what is wrong with the value) follows a colon.
    private func failure(_ value: Value, _ key: String, _ reason: String? = nil) -> RecordError {
        RecordError(
            code: "conversion",
            message: "cannot convert '\(key)' (\(value.kindName) \(value.briefDescription)) to \(rawValue)"
                + (reason.map { ": " + $0 } ?? ""))
    }
}

extension Value {
    /// A short rendering of the value for messages: strings quoted, containers summarized.
    var briefDescription: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .string(let s): s.count > 40 ? "\"\(s.prefix(40))…\"" : "\"\(s)\""
        case .array(let a): "[\(a.count) elements]"
        case .object(let o): "{\(o.count) keys}"
        }
    }
}

extension String {
    var trimmingSpaces: Substring {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
