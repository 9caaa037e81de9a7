/// A date pattern such as `YYYY-MM-DD`, `M月D日` or `DD/MM/YYYY HH:mm`.
///
/// Fields: `YYYY` (year), `YY` (two-digit year), `MM`/`M` (month, padded or not), `DD`/`D` (day),
/// `HH` (hour, 00–23), `mm` (minute), `ss` (second); everything else is written as it stands.
/// Times are UTC, as `CivilDate` reads them; a date without a time has 00:00:00.
public struct DatePattern: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case text(String)
        case year4, year2, month2, month, day2, day, hour2, minute2, second2
    }

    /// The pattern as written.
    public let description: String
    let parts: [Part]

    private static let fields: [(String, Part)] = [
        ("YYYY", .year4), ("YY", .year2), ("MM", .month2), ("M", .month), ("DD", .day2), ("D", .day),
        ("HH", .hour2), ("mm", .minute2), ("ss", .second2),
    ]

    /// Reads `pattern`, longest field names first, so `MM` is one padded month, not two months.
    public init(_ pattern: String) {
        description = pattern
        var parts: [Part] = []
        var rest = Substring(pattern)
        var text = ""
        scan: while !rest.isEmpty {
            for (name, part) in DatePattern.fields where rest.hasPrefix(name) {
                if !text.isEmpty { parts.append(.text(text)) }
                text = ""
                parts.append(part)
                rest = rest.dropFirst(name.count)
                continue scan
            }
            text.append(rest.removeFirst())
        }
        if !text.isEmpty { parts.append(.text(text)) }
        self.parts = parts
    }

    /// Whether the pattern writes any date or time field at all.
    public var hasFields: Bool { parts.contains { if case .text = $0 { false } else { true } } }

    func format(_ date: CivilDate) -> String {
        let seconds = date.seconds ?? 0
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .year4: out += DatePattern.padded(date.year, 4)
            case .year2: out += DatePattern.padded(((date.year % 100) + 100) % 100, 2)
            case .month2: out += DatePattern.padded(date.month, 2)
            case .month: out += String(date.month)
            case .day2: out += DatePattern.padded(date.day, 2)
            case .day: out += String(date.day)
            case .hour2: out += DatePattern.padded(seconds / 3600, 2)
            case .minute2: out += DatePattern.padded(seconds / 60 % 60, 2)
            case .second2: out += DatePattern.padded(seconds % 60, 2)
            }
        }
        return out
    }

    private static func padded(_ n: Int, _ width: Int) -> String {
        let digits = String(n)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
