import ReformSDK

/// A calendar date and UTC time, parsed from ISO 8601 text or epoch seconds without Foundation.
struct CivilDate: Equatable {
    var year: Int, month: Int, day: Int
    var seconds: Int?  // seconds since midnight UTC; nil for a date-only value

    /// `2024-05-01T10:00:00Z`, or `2024-05-01` for a date-only value.
    var iso8601: String {
        var bytes: [UInt8] = []
        appendISO8601(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``iso8601``'s UTF-8 bytes.
    func appendISO8601(to out: inout [UInt8]) {
        guard year >= 0, year < 10_000 else { return appendWideISO8601(to: &out) }
        // Written into a buffer on the stack and appended once: a byte at a time, each append
        // checked the array's capacity and uniqueness (~750 instructions a date).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { text in
            // Two digits at a time from a table (a division and a remainder by 10 per digit were
            // half of writing a date).
            @inline(__always) func pair(_ n: Int, at position: Int) {
                let digits = CivilDate.digitPairs.utf8Start + 2 * n
                text[position] = digits[0]
                text[position + 1] = digits[1]
            }
            pair(year / 100, at: 0)
            pair(year % 100, at: 2)
            text[4] = UInt8(ascii: "-")
            pair(month, at: 5)
            text[7] = UInt8(ascii: "-")
            pair(day, at: 8)
            var count = 10
            if let seconds {
                text[10] = UInt8(ascii: "T")
                pair(seconds / 3600, at: 11)
                text[13] = UInt8(ascii: ":")
                pair(seconds / 60 % 60, at: 14)
                text[16] = UInt8(ascii: ":")
                pair(seconds % 60, at: 17)
                text[19] = UInt8(ascii: "Z")
                count = 20
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<count]))
        }
    }

    /// `00` to `99`, two bytes each.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// ``appendISO8601(to:)`` for a year before 0 or after 9999, written as its number.
    private func appendWideISO8601(to out: inout [UInt8]) {
        func pad(_ n: Int, _ width: Int) {
            if n < 0 { out.append(UInt8(ascii: "-")) }
            let digits = Array(String(n.magnitude).utf8)
            if digits.count < width { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count)) }
            out.append(contentsOf: digits)
        }
        pad(year, 4)
        out.append(UInt8(ascii: "-"))
        pad(month, 2)
        out.append(UInt8(ascii: "-"))
        pad(day, 2)
        guard let seconds else { return }
        out.append(UInt8(ascii: "T"))
        pad(seconds / 3600, 2)
        out.append(UInt8(ascii: ":"))
        pad(seconds / 60 % 60, 2)
        out.append(UInt8(ascii: ":"))
        pad(seconds % 60, 2)
        out.append(UInt8(ascii: "Z"))
    }

    /// Parses epoch seconds (int or double; values above 10^11 are taken as milliseconds) or ISO 8601
    /// text (`2024-05-01`, `2024-05-01T10:00:00`, `…Z`, `…+08:00`, `2024-05-01 10:00:00`).
    ///
    /// Any `Int` is a date (`Int.min` milliseconds is in the year −292,275,055); a double is one
    /// when its seconds fit an `Int` (below about 9.2e21 as milliseconds): past that, or NaN or
    /// infinite, it is no date, so that a conversion fails (a dead letter) instead of trapping.
    static func parse(_ value: Value) -> CivilDate? {
        switch value {
        case .int(let i): return fromEpoch(i.magnitude > 100_000_000_000 ? i / 1000 : i)
        case .double(let d):
            let seconds = (abs(d) > 1e11 ? d / 1000 : d).rounded(.down)
            // Also false for NaN; -2^63 is an Int, 2^63 is not.
            guard seconds >= -9_223_372_036_854_775_808.0, seconds < 9_223_372_036_854_775_808.0 else { return nil }
            return fromEpoch(Int(seconds))
        case .string(let s):
            var s = s
            return s.withUTF8 { parse(text: UnsafeRawBufferPointer($0)) }
        default: return nil
        }
    }

    /// Why `value`, which ``parse(_:)`` refused, is no date, for a conversion's error; `nil` for
    /// a kind that is never one (a bool, a list).
    static func problem(with value: Value) -> String? {
        switch value {
        case .int, .double:
            "as epoch seconds (milliseconds above 10^11) it is past every date (about 9.2e18 seconds either way)"
        case .string:
            "expected ISO 8601 text such as 2024-05-01, 2024-05-01T10:00:00Z or 2024-05-01T10:00:00.123+08:00"
                + " (a fraction of up to \(longestFraction) digits, an offset within ±23:59)"
        default: nil
        }
    }

    /// The date and time `epoch` seconds after 1970-01-01T00:00:00Z, for any `Int`.
    static func fromEpoch(_ epoch: Int) -> CivilDate {
        // Floor division in integers: through a double, a large epoch rounded to the next day and
        // left a negative time of day.
        var days = epoch / 86400
        var seconds = epoch % 86400
        if seconds < 0 {
            days -= 1
            seconds += 86400
        }
        let (y, m, d) = civil(fromDays: days)
        return CivilDate(year: y, month: m, day: d, seconds: seconds)
    }

    /// Seconds since 1970-01-01T00:00:00Z (midnight for a date-only value): ``fromEpoch(_:)``
    /// backwards.
    var epochSeconds: Int {
        // Days from the civil date (H. Hinnant's algorithm), in a year that starts in March.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return (era * 146_097 + dayOfEra - 719_468) * 86400 + (seconds ?? 0)
    }

    /// Parses ISO 8601 text (see ``parse(_:)``) from its UTF-8 bytes.
    static func parse(text b: UnsafeRawBufferPointer) -> CivilDate? {
        // Inlined, so that each call with its constant count is a few instructions (as a call it
        // was half of reading a date).
        @inline(__always) func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var n = 0
            for i in from..<from + count {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                n = n * 10 + Int(b[i] - 48)
            }
            return n
        }
        guard let y = number(0, 4), b.count >= 10, b[4] == 45, let mo = number(5, 2), b[7] == 45,
            let d = number(8, 2), (1...12).contains(mo), d >= 1, d <= daysIn(month: mo, year: y)
        else { return nil }
        if b.count == 10 { return CivilDate(year: y, month: mo, day: d, seconds: nil) }
        guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " ") || b[10] == UInt8(ascii: "t"),
            let h = number(11, 2), b.count >= 16, b[13] == 58, let mi = number(14, 2), h < 24, mi < 60
        else { return nil }
        var i = 16
        var s = 0
        if i < b.count, b[i] == 58 {
            guard let sec = number(17, 2), sec < 61 else { return nil }
            s = min(sec, 59)
            i = 19
            if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                i += 1
                let digits = i
                while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
                // Nanoseconds at most (audit r2 L17: 19 digits were taken).
                guard i > digits, i - digits <= CivilDate.longestFraction else { return nil }
            }
        }
        var offset = 0
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                guard let oh = number(i + 1, 2) else { return nil }
                var om = 0
                if i + 3 < b.count, b[i + 3] == 58 {
                    guard let m = number(i + 4, 2) else { return nil }
                    om = m
                    i += 6
                } else if let m = number(i + 3, 2) {
                    om = m
                    i += 5
                } else {
                    i += 3
                }
                // An offset is within a day, as RFC 3339 says (audit r2 L17: +99:99 was taken).
                guard oh < 24, om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        guard i == b.count else { return nil }
        let epoch = days(fromCivil: y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset
        return fromEpoch(epoch)
    }

    /// The most digits a fraction of a second has: nanoseconds.
    static let longestFraction = 9

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

}
