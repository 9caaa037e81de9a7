import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// `sort` orders keys of one kind (all integers, all numbers, all text) without comparing values
/// one pair at a time; every such order must be the documented one: numbers by value (integers
/// exactly; a double the output writes as an integer, integral with 15 digits or more, as that
/// integer), text by Swift's string order, other kinds after them by kind, nulls and missing keys
/// last, ties in arrival order, `desc` reversing all but the nulls and the ties.
@Suite("Sort orders", .timeLimit(.minutes(10)))
struct SortOrderTests {
    /// A key as the test's own comparator sees it.
    enum Key {
        case int(Int)
        case double(Double)
        case string(String)
        case bool(Bool)
        case null
        case missing

        var json: String? {
            switch self {
            case .int(let v): "\(v)"
            case .double(let v): v == 0 && v.sign == .minus ? "-0.0" : "\(v)"
            case .string(let v): "\"\(v)\""
            case .bool(let v): "\(v)"
            case .null: "null"
            case .missing: nil
            }
        }

        /// The key as it reads back from the output: an integral double of 15 digits or more is
        /// written as an integer (``Value/asWritten`` in the engine).
        var asWritten: Key {
            if case .double(let v) = self, v == v.rounded(.towardZero), v.magnitude >= 1e15, v.magnitude < 0x1p63 {
                return .int(Int(v))
            }
            return self
        }

        var rank: Int {
            switch self {
            case .int, .double: 0
            case .string: 1
            case .bool: 2
            case .null, .missing: 5
            }
        }
    }

    /// Whether `a` goes before `b` (`nil`: a tie), as the pipeline format documents.
    static func precedes(_ a: Key, _ b: Key, descending: Bool) -> Bool? {
        let a = a.asWritten
        let b = b.asWritten
        if (a.rank == 5) != (b.rank == 5) { return b.rank == 5 }
        let order: Int
        switch (a, b) {
        case (.int(let x), .int(let y)): order = x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)): order = x < y ? -1 : (x == y ? 0 : 1)
        case (.int, .double), (.double, .int), (.double, .double):
            let x = number(a)
            let y = number(b)
            order = x < y ? -1 : (x == y ? 0 : 1)
        default: order = a.rank < b.rank ? -1 : (a.rank == b.rank ? 0 : 1)
        }
        return order == 0 ? nil : (descending ? order > 0 : order < 0)
    }

    static func number(_ key: Key) -> Double {
        switch key {
        case .int(let v): Double(v)
        case .double(let v): v
        default: .nan
        }
    }

    /// Sets of keys, each taking another way through the sort.
    static let keySets: [(name: String, keys: [Key])] = {
        var random = SystemRandomNumberGenerator()
        let ints: [Key] =
            (0..<300).map { i in
                i % 37 == 0 ? .null : i % 41 == 0 ? .missing : .int(Int.random(in: -50...50, using: &random) * 100_000_000_000_000_003)
            } + [.int(Int.max), .int(Int.min), .int(9_007_199_254_740_993), .int(9_007_199_254_740_992)]
        let numbers: [Key] = (0..<300).map { i in
            switch i % 7 {
            case 0: .double(Double(Int.random(in: -40...40, using: &random)) / 4)
            case 1: .double(i % 2 == 0 ? -0.0 : 0.0)
            case 2: i % 3 == 0 ? .missing : .null
            default: .int(Int.random(in: -10...10, using: &random))
            }
        }
        // Differing in their two low bytes only (the sort skips the bytes all keys share), many ties.
        let smallInts: [Key] = (0..<400).map { i in i % 53 == 0 ? .null : .int(Int.random(in: 0..<600, using: &random)) }
        let wideAndDouble: [Key] = [
            .int(9_007_199_254_740_993), .double(9_007_199_254_740_992), .int(9_007_199_254_740_992), .int(-3), .double(-3),
            .int(9_007_199_254_740_993), .null,
        ]
        let words = ["b", "a", "é", "e\u{301}", "Z", "名字", "a", "", "ab", "b "]
        let strings: [Key] = (0..<200).map { i in i % 23 == 0 ? .null : .string(words[Int.random(in: 0..<words.count, using: &random)]) }
        let mixed: [Key] = (0..<200).map { i in
            switch i % 6 {
            case 0: .string(words[i % words.count])
            case 1: .bool(i % 4 == 1)
            case 2: .null
            case 3: .double(Double(i % 9) / 2)
            default: .int(i % 5)
            }
        }
        return [
            ("integers", ints), ("small integers", smallInts), ("numbers", numbers), ("wide integers and doubles", wideAndDouble),
            ("text", strings),
            ("mixed kinds", mixed),
        ]
    }()

    @Test(arguments: [false, true])
    func eachKindOfKeySortsAsDocumented(descending: Bool) throws {
        for (name, keys) in SortOrderTests.keySets {
            let folder = try TemporaryFolder()
            let lines = keys.enumerated().map { id, key in
                key.json.map { #"{"id":\#(id),"k":\#($0)}"# } ?? #"{"id":\#(id)}"#
            }
            let input = try folder.write("in.ndjson", lines.joined(separator: "\n") + "\n")
            let yaml = """
                reform: 1
                managers: { a: {} }
                reformers:
                  sorted: { steps: [ { sort: { by: k, order: \(descending ? "desc" : "asc") } }, { pick: [id] } ] }
                runs:
                  default: { reform: [sorted], output: { format: ndjson } }
                """
            let pipeline = try PipelineLoader(environment: [:], allowOutsidePaths: true).load(path: try folder.write("p.yaml", yaml))
            var options = RunOptions()
            options.inputs = [("a", input)]
            options.outputPath = folder.path + "/out.ndjson"
            _ = try Runner(pipeline: pipeline, options: options).run()
            let written = try folder.read("out.ndjson").split(separator: "\n").map(String.init)
            let expected = keys.indices.sorted { a, b in
                SortOrderTests.precedes(keys[a], keys[b], descending: descending) ?? (a < b)
            }.map { #"{"id":\#($0)}"# }
            #expect(written == expected, "\(name), \(descending ? "desc" : "asc")")
        }
    }
}
