public import ReformSDK

/// How a column shows its values: dates and numbers written in a pattern.
///
/// A format turns a value into text when a row is rendered; rows still sort by the value as it
/// came (ISO dates sort by date, not by `2月14日`). `null` stays empty. A value the format cannot
/// read (text where a date belongs) rejects the record to the dead-letter file.
public enum ValueFormat: Sendable, Hashable {
    /// A date or time written in a ``DatePattern`` (from ISO 8601 text or epoch seconds).
    case date(DatePattern)
    /// A number written in a ``NumberPattern`` (from a number or numeric text).
    case number(NumberPattern)

    /// The value as this format writes it, or an error saying why it cannot.
    public func apply(_ value: Value) throws(RecordError) -> Value {
        if value.isNull { return value }
        switch self {
        case .date(let pattern):
            guard let date = CivilDate.parse(value) else {
                throw RecordError(code: "not-a-date", message: "\(value.briefDescription) is not a date (ISO 8601 or epoch seconds)")
            }
            return .string(pattern.format(date))
        case .number(let pattern):
            let number: Double?
            switch value {
            case .int(let i): number = Double(i)
            case .double(let d): number = d
            case .string(let s): number = Double(s)
            default: number = nil
            }
            guard let number, number.isFinite else {
                throw RecordError(code: "not-a-number", message: "\(value.briefDescription) is not a number")
            }
            return .string(pattern.format(number))
        }
    }
}
