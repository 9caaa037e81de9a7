import ReformEngine
import ReformSDK
import ReformTestSupport
import ReformYAML
import Testing

/// Every conversion of a number someone else wrote, over the extremes (±0, subnormals, ±2^53±1,
/// ±2^63, 1e300, NaN and infinity as text) and values drawn with a seeded generator: none traps,
/// and each gives a value or an error that says where (the key, the field, the line). The
/// reliability audit r2 (H1, H2, L12, L17) found `Int(_: Double)` traps in five of them.
@Suite(.timeLimit(.minutes(10))) struct NumbersPropertyTests {
    static let extremeDoubles: [Double] = [
        0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 0.5, -0.5, 1.5,
        9_007_199_254_740_991, 9_007_199_254_740_992, 9_007_199_254_740_992.0.nextUp, -9_007_199_254_740_992.0.nextUp,
        9_223_372_036_854_775_808, -9_223_372_036_854_775_808, 9_223_372_036_854_777_856, -9_223_372_036_854_777_856,
        9_223_372_036_854_774_784, 1e11, 1e11 + 1, -1e11 - 1, 9.3e21, -9.3e21, 9.2e21, 1e17, 1e300, -1e300,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan,
    ]

    static let extremeInts: [Int] = [
        0, 1, -1, .max, .min, .max - 1, .min + 1, 1 << 53, -(1 << 53), (1 << 53) + 1, 100_000_000_000, 100_000_000_001,
        -100_000_000_001, 86_399, -86_401, .max / 1000, .min / 1000,
    ]

    static let extremeTexts: [String] = [
        "0", "-0", "+0", "00", "4.9e-324", "-4.9e-324", "2.2250738585072014e-308", "9007199254740991", "9007199254740993",
        "-9007199254740993", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "99999999999999999999", "-99999999999999999999", "1e300", "-1e300", "1e400", "-1e400", "1e-400", "1e2147483648",
        "1e-2147483649", "0e999999999999", "9.223372036854775807e18", "-9.223372036854775808e18", "1.5", "1.0", "2e3",
        "NaN", "nan", "-nan", "Inf", "-inf", "Infinity", "-Infinity", "0x10", "0x1p3", " 12", "12 ", "\t7", "1_000", "",
        "-", "+", ".", "e5", "1e", "1e+", ".5", "5.", "١٢",
        "2024-05-01", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00+99:99", "2024-05-01T10:00:00-23:59",
        "2024-05-01T10:00:00+24:00", "2024-05-01T10:00:00.1234567890123456789Z", "2024-05-01T10:00:00.123456789Z",
        "2024-05-01T10:00:00.Z", "9999-12-31T23:59:60+00:00", "0000-01-01T00:00:00+23:59", "2024-02-30",
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 99999999999999999999 08:49:37 GMT",
        "Sunday, 06-Nov-9223372036854775807 08:49:37 GMT", "Sun Nov  6 08:49:37 -9223372036854775808",
    ]

    /// The extremes, and `count` more of each kind drawn from a seeded generator: doubles of any
    /// bit pattern, integers, and decimal text of up to 40 digits with a sign, point and exponent.
    static func values(count: Int = 2_000) -> (doubles: [Double], ints: [Int], texts: [String]) {
        var random = SeededGenerator(seed: 0x6E75_6D62_6572_73)
        var doubles = extremeDoubles
        var ints = extremeInts
        var texts = extremeTexts
        for _ in 0..<count {
            doubles.append(Double(bitPattern: random.next()))
            ints.append(Int(truncatingIfNeeded: random.next()))
            var text = Bool.random(using: &random) ? "-" : ""
            text += (0..<Int.random(in: 1...40, using: &random)).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            if Int.random(in: 0..<4, using: &random) == 0 { text += "." + String(Int.random(in: 0...999, using: &random)) }
            if Int.random(in: 0..<3, using: &random) == 0 { text += "e" + String(Int.random(in: -400...400, using: &random)) }
            texts.append(text)
        }
        texts += doubles.prefix(200).map { String($0) } + ints.prefix(200).map { String($0) }
        return (doubles, ints, texts)
    }

    /// Every value as a record value: ints, doubles (finite ones: a parsed record holds no NaN),
    /// and texts.
    static let recordValues: [Value] = {
        let (doubles, ints, texts) = values()
        return ints.map(Value.int) + doubles.filter(\.isFinite).map(Value.double) + texts.map(Value.string)
    }()

    /// What a date conversion writes: `YYYY-MM-DD` with an optional `THH:MM:SSZ`, the year of at
    /// least four digits and maybe negative, every field in its range.
    static func isISODate(_ text: String) -> Bool {
        var rest = Substring(text)
        if rest.first == "-" { rest = rest.dropFirst() }
        let parts = rest.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard day.count == 3, day[0].count >= 4, day.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
            let month = Int(day[1]), (1...12).contains(month), let date = Int(day[2]), (1...31).contains(date)
        else { return false }
        guard parts.count == 2 else { return true }
        let clock = parts[1].dropLast().split(separator: ":")
        guard parts[1].last == "Z", clock.count == 3, let h = Int(clock[0]), let m = Int(clock[1]), let s = Int(clock[2]) else {
            return false
        }
        return (0..<24).contains(h) && (0..<60).contains(m) && (0..<60).contains(s)
    }

    @Test func everyConversionGivesAValueOrAnErrorNamingTheKey() {
        var converted = 0
        var refused = 0
        for value in Self.recordValues {
            for conversion in Conversion.allCases {
                do {
                    let result = try conversion.apply(value, key: "k")
                    converted += 1
                    switch (conversion, result) {
                    case (.int, .int), (.double, .double), (.bool, .bool), (.string, .string): break
                    case (.date, .string(let text)): #expect(Self.isISODate(text), "\(value) → \(text)")
                    case (.double, _): Issue.record("\(value) to double gave \(result)")
                    default: Issue.record("\(value) to \(conversion) gave \(result)")
                    }
                    if conversion == .double, case .double(let d) = result { #expect(d.isFinite, "\(value) → \(d)") }
                } catch {
                    refused += 1
                    #expect(error.code == "conversion")
                    #expect(error.message.hasPrefix("cannot convert 'k' ("), "\(error.message)")
                }
            }
        }
        #expect(converted > 0 && refused > 0)
    }

    @Test func wholeNumberTextIsReadExactlyOrRefusedAsOutOfRange() throws {
        var random = SeededGenerator(seed: 63)
        for _ in 0..<2_000 {
            let magnitude = random.next() >> UInt64.random(in: 0...63, using: &random)
            let negative = Bool.random(using: &random)
            let text = (negative ? "-" : "") + String(magnitude)
            let fits = negative ? magnitude <= UInt64(Int.max) + 1 : magnitude <= UInt64(Int.max)
            do {
                let value = try Conversion.int.apply(.string(text), key: "k")
                #expect(fits, "\(text) → \(value)")
                guard fits else { continue }
                let expected = !negative ? Int(magnitude) : magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
                #expect(value == .int(expected), "\(text) → \(value)")
            } catch {
                #expect(!fits, "\(text): \(error.message)")
                #expect(error.message.hasSuffix(": it is outside the 64-bit integer range (±9223372036854775807)"))
            }
        }
    }

    @Test func rowFormatsGiveTextOrAnErrorWithItsCode() throws {
        let date = ValueFormat.date(DatePattern("YYYY-MM-DD HH:mm:ss"))
        let number = ValueFormat.number(try #require(NumberPattern("#,##0.00")))
        for value in Self.recordValues {
            for (format, code) in [(date, "not-a-date"), (number, "not-a-number")] {
                do {
                    guard case .string = try format.apply(value) else {
                        Issue.record("\(value) formatted as no text")
                        continue
                    }
                } catch {
                    #expect(error.code == code)
                }
            }
        }
    }

    @Test func rateLimitAndRetryAfterHeadersAreClampedToTheLongestWait() {
        let (doubles, ints, texts) = Self.values(count: 500)
        let fields = texts + ints.map { String($0) } + doubles.map { String($0) }
        let now = 1_800_000_000.0
        for text in fields {
            for headers in [
                [("X-RateLimit-Remaining", text), ("X-RateLimit-Reset", text), ("X-RateLimit-Limit", text)],
                [("RateLimit-Remaining", text), ("RateLimit-Reset", text)],
                [("RateLimit", "\"default\";r=\(text);t=\(text)"), ("RateLimit-Policy", "q=\(text)")],
                [("RateLimit", "limit=\(text), remaining=\(text), reset=\(text)")],
            ] {
                let response = HTTPResponse(status: 429, headers: headers.map { QueryItem(name: $0.0, value: $0.1) }, body: nil)
                guard let limits = RateLimitHeaders.read(from: response, now: now) else { continue }
                #expect(limits.remaining >= 0, "\(headers)")
                if let reset = limits.resetIn { #expect((0...Duration.longestWait).contains(reset), "\(headers) → \(reset)") }
            }
            if let wait = RetryAfter.seconds(text, now: now) {
                #expect((0...Duration.longestWait).contains(wait), "Retry-After: \(text) → \(wait)")
            }
        }
    }

    @Test func durationsInAPipelineLoadOrFailAtTheirLine() {
        let (doubles, ints, texts) = Self.values(count: 200)
        let fields = texts.filter { !$0.contains(":") && !$0.contains(",") } + ints.map { String($0) } + doubles.map { String($0) }
        for field in fields {
            for unit in ["", "s", "ms", "m", "h"] {
                let yaml = """
                    reform: 1
                    services:
                      s: { base_url: "http://example.test", timeout: "\(field)\(unit)" }
                    managers:
                      m: { service: s, path: /x }
                    """
                do {
                    let pipeline = try PipelineLoader(environment: [:]).load(bytes: Array(yaml.utf8), file: "p.yaml", folder: ".")
                    let timeout = pipeline.services.first?.timeout ?? 0
                    #expect(timeout > 0 && timeout <= 30 * 86_400, "\(field)\(unit) → \(timeout)")
                } catch {
                    #expect(error.diagnostics.contains { $0.location.line == 3 }, "\(field)\(unit): \(error)")
                }
            }
        }
    }
}
