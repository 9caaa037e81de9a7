import ReformSystem

/// The `Retry-After` header (RFC 9110 10.2.3): delay seconds or an HTTP date.
package enum RetryAfter {
    /// Seconds to wait from `now` (Unix seconds), or `nil` when the header is neither form. A wait
    /// longer than anything waits (``Duration/longestWait``, ~292 years, say `9223372036854775807`)
    /// is that long: the retry policy then gives up on it with its usual message.
    package static func seconds(_ header: String, now: Double) -> Double? {
        let text = header.trimmingCharacters(in: " ")
        if let delay = Int(text), delay >= 0 { return Swift.min(Double(delay), Duration.longestWait) }
        guard let date = HTTPDate.parse(text) else { return nil }
        return Swift.min(Swift.max(0, Double(date) - now), Duration.longestWait)
    }

    /// The current time in Unix seconds.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// HTTP dates: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Unix seconds of `text`, or `nil` when it is not an HTTP date.
    static func parse(_ text: String) -> Int? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var clock: [Int]?
        for word in words.dropFirst() {
            if word.contains(":") {
                let parts = word.split(separator: ":").compactMap { Int($0) }
                if parts.count == 3 { clock = parts }
            } else if word.contains("-") {
                // RFC 850: 06-Nov-94
                let parts = word.split(separator: "-").map(String.init)
                guard parts.count == 3 else { return nil }
                day = Int(parts[0])
                month = months.firstIndex(of: parts[1].lowercased()).map { $0 + 1 }
                year = Int(parts[2]).map { $0 < 100 ? ($0 < 70 ? 2000 + $0 : 1900 + $0) : $0 }
            } else if let m = months.firstIndex(of: word.lowercased()) {
                month = m + 1
            } else if let n = Int(word) {
                if n > 31 { year = n } else { day = n }
            }
        }
        // A four-digit year at most: a longer one (`9223372036854775807`) overflowed the day count.
        guard let day, let month, let year, let clock, (1...31).contains(day), (0...9999).contains(year),
            clock.allSatisfy({ $0 >= 0 }), clock[0] < 24, clock[1] < 60, clock[2] < 61
        else { return nil }
        let days = CivilDate.days(fromCivil: year, month, day)
        return days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
    }
}
