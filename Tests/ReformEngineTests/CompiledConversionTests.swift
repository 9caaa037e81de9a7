import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// Strings of digits converted to int are copied as the number's text on the compiled path when
/// they are exactly what the writer prints; every other string goes through the conversion. Both
/// must write and reject what the general path does, in a mapping rule and in a `convert` step.
@Suite("Compiled conversions convert what the general path converts")
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
}
