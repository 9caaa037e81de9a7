import Foundation
import ReformTestSupport
import Testing

/// CSV written to a file is safe to open in a spreadsheet: text cells that would run as formulas
/// get a `'` and quotes (reliability audit M9); CSV and Markdown written to a terminal show the
/// data's control characters escaped, as the table format does (audit L8).
@Suite("Spreadsheet and terminal safety", .timeLimit(.minutes(10)))
struct SpreadsheetSafetyTests {
    static let pipeline = """
        reform: 1
        managers: { m: {} }
        runs:
          default: { output: { format: csv } }
          raw-file: { output: { format: csv, path: raw.csv, escape_formulas: false } }
          forced: { output: { format: csv, escape_formulas: true } }
          markdown: { output: { format: markdown } }
        """

    static let input =
        #"{"id": -5, "name": "=HYPERLINK(\"http://evil.example/\",\"x\")", "n": "-5", "t": "\t=1+1", "ok": "plain"}"# + "\n"
        + #"{"id": 2.5, "name": "@SUM(1+1)", "n": "+1", "t": "\r=1+1", "ok": true}"# + "\n"

    /// What a spreadsheet gets: every text cell starting with = + - @ tab or CR quoted after a `'`;
    /// the numbers -5 and 2.5 and the boolean as they are.
    static let escaped =
        "id,name,n,t,ok\n" + #"-5,"'=HYPERLINK(""http://evil.example/"",""x"")","'-5","'"# + "\t=1+1\",plain\n"
        + #"2.5,"'@SUM(1+1)","'+1","'"# + "\r=1+1\",true\n"

    /// The same cells with only RFC 4180 quoting.
    static let raw =
        "id,name,n,t,ok\n" + #"-5,"=HYPERLINK(""http://evil.example/"",""x"")",-5,"# + "\t=1+1,plain\n"
        + "2.5,@SUM(1+1),+1,\"\r=1+1\",true\n"

    /// A folder holding the pipeline and its input.
    func folder() throws -> String {
        let folder = Scratch.path("spreadsheet")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.pipeline.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        try Self.input.write(toFile: folder + "/in.ndjson", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func csvWrittenToAFileEscapesFormulaCellsAndCSVRawTurnsItOff() async throws {
        let folder = try folder()
        let escaped = try await ReformProcess.run(["run", "p.yaml", "--input", "m=in.ndjson", "--output", "out.csv", "-q"], in: folder)
        #expect(escaped.status == 0, "\(escaped.stderr)")
        #expect(try String(contentsOfFile: folder + "/out.csv", encoding: .utf8) == Self.escaped)
        let raw = try await ReformProcess.run(
            ["run", "p.yaml", "--input", "m=in.ndjson", "--output", "raw.csv", "--csv-raw", "-q"], in: folder)
        #expect(raw.status == 0, "\(raw.stderr)")
        #expect(try String(contentsOfFile: folder + "/raw.csv", encoding: .utf8) == Self.raw)
    }

    @Test func standardOutputIsRawUnlessTheOutputAsksAndAFileOutputCanOptOut() async throws {
        let folder = try folder()
        let stdout = try await ReformProcess.run(["run", "p.yaml", "--input", "m=in.ndjson", "-q"], in: folder)
        #expect(stdout.stdout == Self.raw, "machine-to-machine CSV on a pipe is left as it is")
        let forced = try await ReformProcess.run(["run", "p.yaml", "--run", "forced", "--input", "m=in.ndjson", "-q"], in: folder)
        #expect(forced.stdout == Self.escaped)
        let rawFile = try await ReformProcess.run(["run", "p.yaml", "--run", "raw-file", "--input", "m=in.ndjson", "-q"], in: folder)
        #expect(rawFile.status == 0, "\(rawFile.stderr)")
        #expect(try String(contentsOfFile: folder + "/raw.csv", encoding: .utf8) == Self.raw)
    }

    @Test func escapeFormulasIsForCSVOutputs() async throws {
        let folder = try folder()
        try "reform: 1\nmanagers: { m: {} }\nruns:\n  default: { output: { format: ndjson, escape_formulas: true } }\n"
            .write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        let result = try await ReformProcess.run(["validate", "p.yaml"], in: folder)
        #expect(result.status != 0)
        #expect(
            result.stderr.contains(
                "p.yaml:4:57: error: 'escape_formulas' (a ' before CSV cells a spreadsheet would run as formulas) is for csv outputs; "
                    + "this output is ndjson"),
            "\(result.stderr)")
    }

    @Test(arguments: [
        ("csv", #"\u001b[31mred\u001b[0m \u009b2J"#), ("markdown", #"\u001b\[31mred\u001b\[0m \u009b2J"#),
    ])
    func controlCharactersOnATerminalAreEscaped(format: String, expected: String) async throws {
        let folder = try folder()
        try #"{"id": 1, "name": "\u001b[31mred\u001b[0m \u009b2J"}"#.appending("\n")
            .write(toFile: folder + "/esc.ndjson", atomically: true, encoding: .utf8)
        let shown = try await TerminalProcess.run(["run", "p.yaml", "--input", "m=esc.ndjson", "--format", format, "-q"], in: folder)
        #expect(shown.status == 0)
        #expect(shown.output.contains(expected), "\(shown.output)")
        #expect(!shown.output.contains("\u{1B}"), "no raw ESC reaches the terminal")
        let piped = try await ReformProcess.run(["run", "p.yaml", "--input", "m=esc.ndjson", "--format", format, "-q"], in: folder)
        #expect(piped.stdout.contains("\u{1B}"), "a pipe gets the data as it is")
    }
}
