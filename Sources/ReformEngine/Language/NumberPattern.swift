/// A number pattern such as `#,##0.00`, `0.0%` or `¥#,##0`.
///
/// The digits part (`#`, `0`, `,`, `.`) says how to write the number: a `,` groups thousands, the
/// count of `0`/`#` after `.` is the fixed number of decimals (rounded half away from zero); a `%`
/// after it multiplies by 100. Text before and after is written as it stands (`¥`, ` 元`).
public struct NumberPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let description: String
    let prefix: String
    let suffix: String
    let grouping: Bool
    let decimals: Int
    let percent: Bool

    /// Reads `pattern`; `nil` when it has no digits part (no `0` or `#`), or more than 15 decimals.
    public init?(_ pattern: String) {
        let characters = Array(pattern)
        guard let first = characters.firstIndex(where: { $0 == "0" || $0 == "#" }),
            let last = characters.lastIndex(where: { $0 == "0" || $0 == "#" })
        else { return nil }
        var start = first
        while start > 0, characters[start - 1] == "." || characters[start - 1] == "," { start -= 1 }
        let digits = characters[start...last]
        var after = last + 1
        percent = after < characters.count && characters[after] == "%"
        if percent { after += 1 }
        prefix = String(characters[..<start])
        suffix = String(characters[after...])
        grouping = digits.contains(",")
        decimals = digits.firstIndex(of: ".").map { digits[($0 + 1)...].filter { $0 == "0" || $0 == "#" }.count } ?? 0
        guard decimals <= 15 else { return nil }
        description = pattern
    }

    func format(_ value: Double) -> String {
        let number = percent ? value * 100 : value
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(number) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e15 else { return prefix + String(number) + (percent ? "%" : "") + suffix }
        let units = Int(scaled)
        let whole = units / Int(scale)
        var text = grouping ? NumberPattern.grouped(whole) : String(whole)
        if decimals > 0 {
            let fraction = String(units % Int(scale))
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        let sign = number < 0 && units != 0 ? "-" : ""
        return prefix + sign + text + (percent ? "%" : "") + suffix
    }

    /// `1,500`: `n` with its thousands grouped (also the HTML page's record count).
    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
