import ReformSDK

/// Cursor values of an incremental manager: read from records, compared, and turned into what
/// the next run sends.
struct IncrementalCursor {
    /// How the values are written.
    let format: IncrementalPlan.Format

    /// Where a cursor value sits in the order of changes.
    enum Position: Comparable {
        /// A number (epoch seconds for every time format, or the value of a `number` cursor).
        case number(Int)
        /// Text compared byte by byte (`opaque`).
        case text(String)

        static func < (a: Position, b: Position) -> Bool {
            switch (a, b) {
            case (.number(let x), .number(let y)): x < y
            case (.text(let x), .text(let y)): Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            case (.number, .text): true
            case (.text, .number): false
            }
        }
    }

    /// The position of `value`, or `nil` when it is not a value of this format.
    func position(of value: Value) -> Position? {
        switch format {
        case .iso8601:
            guard case .string = value, let date = CivilDate.parse(value) else { return nil }
            return .number(CivilDate.days(fromCivil: date.year, date.month, date.day) * 86_400 + (date.seconds ?? 0))
        case .epochSeconds, .epochMillis, .number:
            let number: Int?
            switch value {
            case .int(let i): number = i
            case .double(let d) where d.isFinite && abs(d) < 1e18: number = Int(d.rounded(.down))
            case .string(let s): number = Int(s)
            default: number = nil
            }
            guard let number else { return nil }
            return .number(format == .epochMillis ? number / 1000 : number)
        case .opaque:
            guard case .string(let s) = value else { return value.isNull ? nil : .text(value.plainText) }
            return .text(s)
        }
    }

    /// What is sent for `bookmark` with `lookback` seconds taken off (time formats only).
    func sent(_ bookmark: Value, lookback: Double) -> Value {
        guard lookback > 0, case .number(let seconds)? = position(of: bookmark) else { return bookmark }
        // Saturating: the bookmark is a value the API sent, `Int.min` included.
        let earlier = seconds.subtractingSaturated(Int(saturating: lookback.rounded(.up)))
        switch format {
        case .iso8601: return .string(CivilDate.fromEpoch(earlier).iso8601)
        case .epochSeconds: return .int(earlier)
        case .epochMillis:
            if case .int(let ms) = bookmark { return .int(ms.subtractingSaturated(Int(saturating: lookback * 1000))) }
            return .int(earlier.multipliedSaturated(by: 1000))
        case .number, .opaque: return bookmark
        }
    }
}
