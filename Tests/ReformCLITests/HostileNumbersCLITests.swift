import Foundation
import ReformTestSupport
import Testing

/// Numbers someone else wrote, at their extremes, through every place a record's value becomes a
/// date or an integer: each bad one is a dead letter saying why, and the run carries on
/// (reliability audit r2 H2, L12, L17: `1e300` in a date field used to kill the run, exit 132).
@Suite(.timeLimit(.minutes(10))) struct HostileNumbersCLITests {
    /// Records whose `when` is a number or text no date conversion may trap on.
    static let lines = [
        #"{"id": 1, "when": 1700000000}"#,
        #"{"id": 2, "when": 1e300}"#,
        #"{"id": 3, "when": 9.3e21}"#,
        #"{"id": 4, "when": -9.3e21}"#,
        #"{"id": 5, "when": -9223372036854775808}"#,
        #"{"id": 6, "when": 9223372036854775807}"#,
        #"{"id": 7, "when": "2024-05-01T10:00:00+99:99"}"#,
        #"{"id": 8, "when": "2024-05-01T10:00:00.1234567890123456789Z"}"#,
        #"{"id": 9, "when": "2024-05-01T10:00:00.123456789+08:00"}"#,
    ]

    /// The ids among ``lines`` that are no date.
    static let rejected = [2, 3, 4, 7, 8]

    /// Where a value becomes a date: a mapping rule, a steps `convert`, a rows `format`, an
    /// SQLite column's type.
    static let places: [(name: String, reformer: String, output: String)] = [
        (
            "mapping", "r: { keys: { id: kID, when: kWhen }, map: { id: id, when: { path: when, convert: date } } }",
            "{ format: ndjson }"
        ),
        ("steps", "r: { steps: [ { convert: { when: date } } ] }", "{ format: ndjson }"),
        ("rows", "r: { steps: [ { pick: [id, when] } ] }", "{ rows: t, format: csv }"),
        (
            "sqlite", "r: { keys: { id: id, when: when }, map: { id: id, when: when } }",
            "{ sqlite: out.db, table: t, types: { when: date } }"
        ),
    ]

    /// Runs a pipeline with `reformer` and `output` over ``lines`` in a fresh folder; returns the
    /// outcome and the dead-letter file's lines.
    static func run(reformer: String, output: String, lines: [String] = lines) async throws -> (ReformProcess.Outcome, [String]) {
        let folder = Scratch.path("numbers")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let pipeline = """
            reform: 1
            managers: { m: {} }
            reformers:
              \(reformer)
            rows:
              t: { columns: [id, when], format: { when: { date: "YYYY-MM-DD HH:mm:ss" } } }
            runs:
              default: { managers: [m], reform: [r], output: \(output) }
            """
        try pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let dead = folder + "/dead.ndjson"
        let result = try await ReformProcess.run(
            ["run", "p.yaml", "--input", "m=-", "--dead-letter", dead, "--quiet"], stdin: lines.joined(separator: "\n") + "\n",
            in: folder)
        let letters = ((try? String(contentsOfFile: dead, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return (result, letters)
    }

    @Test(arguments: places.map(\.name))
    func hugeNumbersAndBadOffsetsInADateAreDeadLettersAndTheRunGoesOn(place: String) async throws {
        let (_, reformer, output) = try #require(Self.places.first { $0.name == place })
        let (result, letters) = try await Self.run(reformer: reformer, output: output)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(letters.count == Self.rejected.count, "\(letters)")
        for id in Self.rejected {
            #expect(letters.contains { $0.contains(#""id":\#(id),"#) || $0.contains(#""id": \#(id),"#) }, "id \(id) in \(letters)")
        }
    }

    @Test func aDateConversionSaysWhyTheValueIsNoDate() async throws {
        let (result, letters) = try await Self.run(reformer: Self.places[0].reformer, output: Self.places[0].output)
        #expect(result.status == 3)
        let text = letters.joined(separator: "\n")
        #expect(
            text.contains(
                "cannot convert 'when' (double 1e+300) to date: as epoch seconds (milliseconds above 10^11) it is past every date (about 9.2e18 seconds either way)"
            ), "\(text)")
        #expect(
            text.contains(
                #"cannot convert 'when' (string \"2024-05-01T10:00:00+99:99\") to date: expected ISO 8601 text such as 2024-05-01, 2024-05-01T10:00:00Z or 2024-05-01T10:00:00.123+08:00 (a fraction of up to 9 digits, an offset within ±23:59)"#
            ), "\(text)")
        #expect(
            result.stdout.split(separator: "\n") == [
                #"{"kID":1,"kWhen":"2023-11-14T22:13:20Z"}"#,
                #"{"kID":5,"kWhen":"-292275055-05-16T16:47:05Z"}"#,
                #"{"kID":6,"kWhen":"292278994-08-17T07:12:55Z"}"#,
                #"{"kID":9,"kWhen":"2024-05-01T02:00:00Z"}"#,
            ])
    }

    /// Whole numbers at and past the 64-bit range, and text that is no decimal number.
    static let integers = [
        #"{"id": 1, "n": 9223372036854775807}"#,
        #"{"id": 2, "n": -9223372036854775808}"#,
        #"{"id": 3, "n": 9223372036854775808}"#,
        #"{"id": 4, "n": -9223372036854775809}"#,
        #"{"id": 5, "n": "-9223372036854775809"}"#,
        #"{"id": 6, "n": "9223372036854775808"}"#,
        #"{"id": 7, "n": "0x10"}"#,
        #"{"id": 8, "n": " 12 "}"#,
        #"{"id": 9, "n": "1.5e3"}"#,
        #"{"id": 10, "n": "nan"}"#,
        #"{"id": 11, "n": 1e300}"#,
        #"{"id": 12, "n": "-9223372036854775808"}"#,
    ]

    @Test(arguments: ["ndjson", "sqlite"])
    func integersOutOfRangeAreRefusedBothWaysNeverRoundedIn(output: String) async throws {
        let (result, letters) = try await Self.run(
            reformer: "r: { keys: { id: id, n: n }, map: { id: id, n: { path: n, convert: int } } }",
            output: output == "ndjson" ? "{ format: ndjson }" : "{ sqlite: out.db, table: t }",
            lines: Self.integers)
        #expect(result.status == 3, "\(result.stderr)")
        let refused = [3, 4, 5, 6, 7, 10, 11]
        #expect(letters.count == refused.count, "\(letters)")
        let text = letters.joined(separator: "\n")
        #expect(
            text.contains(
                #"cannot convert 'n' (string \"-9223372036854775809\") to int: it is outside the 64-bit integer range (±9223372036854775807)"#
            ), "\(text)")
        #expect(text.contains(#"cannot convert 'n' (string \"0x10\") to int""#), "\(text)")
        if output == "ndjson" {
            #expect(
                result.stdout.split(separator: "\n") == [
                    #"{"id":1,"n":9223372036854775807}"#, #"{"id":2,"n":-9223372036854775808}"#, #"{"id":8,"n":12}"#,
                    #"{"id":9,"n":1500}"#, #"{"id":12,"n":-9223372036854775808}"#,
                ])
        }
    }
}
