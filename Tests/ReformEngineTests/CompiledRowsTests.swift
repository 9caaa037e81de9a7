import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// Rows rendered as CSV on the compiled path (each cell straight from the line's bytes) must write
/// exactly what the general path writes — header, quoting, cells of every kind of value, the
/// order of lines that take either path — and reject the same lines, at `--jobs 1` and `2`.
@Suite("Compiled rows write what the general path writes", .timeLimit(.minutes(10)))
struct CompiledRowsTests {
    static let lines = [
        #"{"id":1,"name":"plain","loc":{"city":"sh"},"price":120,"tags":["a","b"]}"#,
        #"{ "price" : 99.5 , "name" : "comma, and \"quotes\"" , "id" : 2 , "loc" : { "city" : "bj" } }"#,
        #"{"id":3,"name":"line\nbreak\r\n","loc":{"city":"s\u4e0a"},"price":1e2,"tags":{"k":[1,2.50]}}"#,
        #"{"id":4,"name":"静安寺 · 上海","loc":{"city":"上海"},"price":-0,"tags":[]}"#,
        #"{"id":5,"name":null,"loc":null,"price":null,"tags":null}"#,
        #"{"id":6,"loc":"not an object","price":true}"#,
        #"{"id":7,"name":"dup","name":"dup2","loc":{"city":"x","city":"y"},"price":1234567890123456789}"#,
        #"{"id":8,"name":"bad" "price":1}"#,
        #"[1,2]"#,
        "",
        #"{"id":9,"name":"","loc":{},"price":0.1,"tags":[null]}   "#,
        #"{"id":10,"name":"\u0022","loc":{"city":"\t"},"price":12.50}"#,
        "{\"id\":11,\"name\":\"del \u{7F}\",\"loc\":{\"city\":\",\"},\"price\":false}",
        #"{"id":12,"name":"a long name, with a comma well past its first eight bytes","loc":{"city":"nothing to quote here"}}"#,
        #"{"id":13,"name":"=1+1","loc":{"city":"-x"},"price":-5,"tags":"@SUM(A1)"}"#,
        #"{"id":14,"name":"\t=1+1","loc":{"city":"+\u0031"},"price":-1500,"tags":["=x"]}"#,
    ]

    static let pipeline = """
        reform: 1
        managers: { a: {}, b: {} }
        rows:
          listing-row:
            columns: [id, name, city, price, tags, again]
            from:
              a: { columns: { city: loc.city, again: name } }
          lone: { columns: [name] }
        runs:
          rows: { output: { rows: listing-row, format: csv } }
          lone: { output: { rows: lone, format: csv } }
          bom: { output: { rows: listing-row, format: csv, bom: true } }
        """

    /// One run over `lines`, in small batches so that lines of both paths share one.
    func run(_ runName: String, lines: [String] = lines, direct: Bool, jobs: Int = 1) throws -> PathRun {
        try PathRun.run(Self.pipeline, lines: lines, runName: runName, direct: direct, jobs: jobs, batchSize: 250, outputName: "out.csv")
    }

    @Test(arguments: ["rows", "lone", "bom"])
    func sameCSVDeadLettersAndSummary(_ runName: String) throws {
        let general = try run(runName, direct: false)
        for other in [try run(runName, direct: true), try run(runName, direct: true, jobs: 2)] {
            #expect(other.out == general.out, "\(runName)")
            #expect(other.dead == general.dead)
            #expect(other.summary == general.summary)
        }
        // Not vacuous: the compiled path wrote rows, some lines took the general path, some were rejected.
        let compiled = try run(runName, direct: true)
        #expect(general.direct == 0 && compiled.direct > 0 && compiled.direct < Self.lines.count - 1)
        #expect(!general.dead.isEmpty)
    }

    @Test func noRecordsWriteTheHeaderAlone() throws {
        for direct in [false, true] {
            #expect(try run("rows", lines: [], direct: direct).out == "id,name,city,price,tags,again\n")
        }
    }

    @Test func theCellsReadAsExpected() throws {
        let out = try run("rows", direct: true).out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(out.first == "id,name,city,price,tags,again")
        #expect(out[1] == #"1,plain,sh,120,"[""a"",""b""]",plain"#)
        #expect(out[2] == #"2,"comma, and ""quotes""",bj,99.5,,"comma, and ""quotes""""#)
    }

    /// A file output's text cells that a spreadsheet would run as formulas get a `'` and quotes on
    /// both paths; numbers and JSON cells stay as they are (reliability audit M9).
    @Test func formulaCellsOfAFileAreEscapedOnBothPaths() throws {
        for direct in [false, true] {
            let out = try run("rows", direct: direct).out.split(separator: "\n").filter { $0.hasPrefix("13,") || $0.hasPrefix("14,") }
            #expect(
                out == [#"13,"'=1+1","'-x",-5,"'@SUM(A1)","'=1+1""#, "14,\"'\t=1+1\",\"'+1\",-1500,\"[\"\"=x\"\"]\",\"'\t=1+1\""],
                "\(direct)")
        }
    }
}
