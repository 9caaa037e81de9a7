import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// Strings of digits converted to int are copied as the number's text on the compiled path when
/// they are exactly what the writer prints; every other string goes through the conversion. Both
/// must write and reject what the general path does, in a mapping rule and in a `convert` step.
@Suite("Compiled conversions convert what the general path converts", .timeLimit(.minutes(10)))
struct CompiledConversionTests {
    static let texts = [
        "0", "-0", "007", "-12", "12", "123456789012345678", "-123456789012345678", "1234567890123456789",
        "99999999999999999999", "+5", " 5", "5 ", "1e3", "", "-", "12a", "1.0", "1.5", "٣", "12\\u0033",
    ]

    static let pipeline = """
        reform: 1
        managers: { a: {} }
        reformers:
          numbers:
            keys: { id: id, n: n, m: m }
            map: { id: id, n: { path: n, convert: int }, m: m }
          converted: { steps: [ { convert: { m: int } } ] }
        runs:
          default: { reform: [numbers, converted], output: { format: ndjson } }
        """

    func run(direct: Bool, jobs: Int = 1) throws -> PathRun {
        let lines = Self.texts.enumerated().map { #"{"id":\#($0.offset),"n":"\#($0.element)","m":"\#($0.element)"}"# }
        return try PathRun.run(Self.pipeline, lines: lines, direct: direct, jobs: jobs)
    }

    @Test func digitsConvertAsTheGeneralPathConvertsThem() throws {
        let general = try run(direct: false)
        let compiled = try run(direct: true)
        let parallel = try run(direct: true, jobs: 2)
        #expect(compiled.out == general.out && compiled.dead == general.dead)
        #expect(parallel.out == general.out && parallel.dead == general.dead)
        // Not vacuous: both kinds of answer, and the compiled path took lines.
        #expect(general.out.contains(#""n":123456789012345678,"m":123456789012345678"#))
        #expect(general.out.contains(#""n":7,"m":7"#) && general.out.contains(#""n":5,"m":5"#))
        #expect(!general.dead.isEmpty && compiled.direct > 0)
    }

    /// ISO 8601 text and epoch numbers, each with the UTC text `convert: date` writes (`nil`:
    /// rejected). The compiled path reads a date without escapes as bytes.
    static let dates: [(String, String?)] = [
        (#""2024-05-28T05:21:00+08:00""#, "2024-05-27T21:21:00Z"),
        (#""2024-05-01T23:30:00-02:30""#, "2024-05-02T02:00:00Z"),
        (#""2024-05-01T10:00:00+0530""#, "2024-05-01T04:30:00Z"),
        (#""2024-05-01T10:00:00+05""#, "2024-05-01T05:00:00Z"),
        (#""1999-12-31T23:59:59-00:01""#, "2000-01-01T00:00:59Z"),
        (#""2024-02-29T23:59:59Z""#, "2024-02-29T23:59:59Z"),
        (#""2024-05-01t10:00:00z""#, "2024-05-01T10:00:00Z"),
        (#""2024-05-01 10:00""#, "2024-05-01T10:00:00Z"),
        (#""2024-05-01T10:00:00.123456Z""#, "2024-05-01T10:00:00Z"),
        (#""2024-05-01T10:00:00,5""#, "2024-05-01T10:00:00Z"),
        (#""2024-05-01T10:00:60Z""#, "2024-05-01T10:00:59Z"),
        (#""2024-01-01""#, "2024-01-01"),
        (#""2000-02-29""#, "2000-02-29"),
        (#""0001-01-01T00:00:00+01:00""#, "0000-12-31T23:00:00Z"),
        (#""9999-12-31T23:59:59-01:00""#, "10000-01-01T00:59:59Z"),
        (#""2024-05-\u00301""#, "2024-05-01"),
        ("1716848460", "2024-05-27T22:21:00Z"),
        ("1716848460123", "2024-05-27T22:21:00Z"),
        ("1716848460.9", "2024-05-27T22:21:00Z"),
        (#""1900-02-29""#, nil), (#""2023-02-29""#, nil), (#""2024-04-31""#, nil), (#""2024-13-01""#, nil),
        (#""2024-00-10""#, nil), (#""2024-05-00""#, nil), (#""2024-5-01""#, nil), (#""2024-05-01T24:00:00Z""#, nil),
        (#""2024-05-01T10:60:00Z""#, nil), (#""2024-05-01T10:00:61Z""#, nil), (#""2024-05-01T10:00:00Zx""#, nil),
        (#""2024-05-01T10""#, nil), (#""2024/05/01""#, nil), (#""２０２４-05-01""#, nil), (#""2024-05-01T10:00:00+5""#, nil),
        (#""""#, nil), ("true", nil),
    ]

    @Test func datesConvertToUTCTextOnEveryPath() throws {
        let pipeline = """
            reform: 1
            managers: { a: {} }
            reformers:
              dated: { keys: { id: id, when: when }, map: { id: id, when: { path: when, convert: date } } }
            runs:
              default: { reform: [dated], output: { format: ndjson } }
            """
        let lines = Self.dates.enumerated().map { #"{"id":\#($0.offset),"when":\#($0.element.0)}"# }
        let general = try PathRun.run(pipeline, lines: lines, direct: false)
        let expected = Self.dates.enumerated().compactMap { id, date in date.1.map { #"{"id":\#(id),"when":"\#($0)"}"# + "\n" } }
        #expect(general.out == expected.joined())
        #expect(general.dead.split(separator: "\n").count == Self.dates.filter { $0.1 == nil }.count)
        for jobs in [1, 2] {
            let compiled = try PathRun.run(pipeline, lines: lines, direct: true, jobs: jobs)
            #expect(compiled.out == general.out && compiled.dead == general.dead)
            #expect(compiled.direct > 0)
        }
    }
}
