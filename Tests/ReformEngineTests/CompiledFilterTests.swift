import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// A compiled chain's `filter` decides on slot texts where it can (`true`/`false`/`null`, ASCII
/// strings) and parses the slot otherwise; every condition must keep exactly the records the
/// general path keeps, on values of every kind: ints and doubles that are equal, strings that are
/// canonically equivalent but not byte-equal (`é` and `e` + U+0301, `K` and the Kelvin sign),
/// null, missing, nested and escaped values.
@Suite("Compiled filters keep what the general path keeps", .timeLimit(.minutes(10)))
struct CompiledFilterTests {
    static let values = [
        #""price":7,"name":"K","ok":true,"flag":null,"nested":{"x":2}"#,
        #""price":7.0,"name":"\u212a","ok":false,"flag":0,"nested":{"x":0.5}"#,
        #""price":"7","name":"é","ok":null,"flag":"","nested":[1]"#,
        #""price":-1.5,"name":"e\u0301","ok":1,"flag":false,"nested":null"#,
        #""price":1e3,"name":"plain","ok":"true","flag":true"#,
        #""price":1000.5,"name":"a\"b","ok":0,"nested":{"x":"3"}"#,
        #""price":null,"name":"a","ok":true,"flag":[],"nested":{}"#,
        #""price":true,"name":null,"ok":[false],"flag":{}"#,
        #""name":"b","ok":true,"flag":"null""#,
        #""price":12345678901234567,"name":"ab","ok":false,"flag":"false""#,
        #""price":0,"name":"","ok":"","flag":-0"#,
        // Decimals read without the parser (up to 15 digits) or with it (more, an exponent).
        #""price":0.1"#, #""price":0.3"#, #""price":0.30000000000000004"#, #""price":31.2"#,
        #""price":31.199999999999999"#, #""price":31.479471"#, #""price":-0.0"#, #""price":0.001"#,
        #""price":1234567890123.45"#, #""price":99999999999999.9"#, #""price":123456789012345"#,
        #""price":1234567890123456"#, #""price":2.5E-1"#, #""price":-31.20"#,
    ]

    static let conditions = [
        "price > 10", "10 < price", "price == 7", "7 == price", "price != 7", "price >= -1.5 and price <= 1e3",
        "price == 0", "flag == 0", "-2 < price", "price <= 7.0", "price < 7", "price >= 7", "price != 1000", "price < 12345678901234568",
        "price >= 0.3", "price < 31.2", "price == 0.1", "price > 1234567890123.44", "price == -0", "price <= -31.2",
        "price == 0.25", "price > 123456789012344.5", "31.2 <= price", "price == 0.3", "price == 31.2",
        "name == 'K'", "'K' == name", "name != 'K'", "name == 'é'", "name != 'plain'", "name == 'a\"b'", "name < 'b'",
        "ok", "not ok", "ok == true", "ok != false", "ok == null", "flag == null", "flag", "not flag",
        "ok == false or name startswith 'a'", "name in ['a', 'b', 'K']", "nested.x > 1", "nested", "price == '7'",
        "missing == null", "missing", "not missing", "price > 5 and (ok == true or name == 'plain') and flag != true",
    ]

    /// A run of `condition` over the lines, on the compiled path or not.
    func run(_ condition: String, direct: Bool, jobs: Int = 1) throws -> PathRun {
        let lines = Self.values.enumerated().map { #"{"id":\#($0.offset),\#($0.element)}"# }
        let escaped = condition.replacingOccurrences(of: "\"", with: "\\\"")
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers:
              passed:
                keys: { id: id, price: price, name: name, ok: ok, flag: flag, nested: nested, missing: missing }
                map:
                  id: id
                  price: { path: price, optional: true }
                  name: { path: name, optional: true }
                  ok: { path: ok, optional: true }
                  flag: { path: flag, optional: true }
                  nested: { path: nested, optional: true }
                  missing: { path: missing, optional: true }
              kept: { steps: [ { filter: "\(escaped)" } ] }
            runs:
              default: { reform: [passed, kept], output: { format: ndjson } }
            """
        return try PathRun.run(yaml, lines: lines, direct: direct, jobs: jobs)
    }

    @Test(arguments: conditions)
    func keepsWhatTheGeneralPathKeeps(_ condition: String) throws {
        let general = try run(condition, direct: false)
        let compiled = try run(condition, direct: true)
        let parallel = try run(condition, direct: true, jobs: 2)
        #expect(compiled.out == general.out, "\(condition)")
        #expect(compiled.dead == general.dead && compiled.summary == general.summary)
        #expect(parallel.out == general.out && parallel.dead == general.dead && parallel.summary == general.summary)
        // Not vacuous: the compiled path took the lines (every one of them: all fields are optional).
        #expect(general.direct == 0)
        #expect(compiled.direct == general.out.split(separator: "\n").count, "\(condition)")
    }

    @Test func theConditionsTellTheValuesApart() throws {
        // The general path itself: spot checks that the values above exercise each kind of answer.
        #expect(try run("price == 7", direct: false).out.split(separator: "\n").count == 2)
        #expect(try run("name == 'K'", direct: false).out.split(separator: "\n").count == 2)
        #expect(try run("name == 'é'", direct: false).out.split(separator: "\n").count == 2)
        #expect(try run("ok", direct: false).out.split(separator: "\n").count == 8)
    }
}
