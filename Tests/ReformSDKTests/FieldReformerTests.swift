import ReformPluginTesting
import ReformSDK
import Testing

/// ``FieldReformer`` through its value path and the conformance kit, which also runs the text
/// (fast) path: a reformer that keeps to the rules passes; one that tells the paths apart, or that
/// emits too few or too many keys, is caught with a message that says so.
@Suite("FieldReformer", .timeLimit(.minutes(10)))
struct FieldReformerTests {
    static let keys = KeySet([.init(name: "city", constant: "kCity"), .init(name: "size", constant: "kSize")])

    /// Copies `city` and `size`; `size` null when absent. `mode` makes it misbehave on purpose.
    struct Copy: FieldReformer, Sendable {
        enum Mode: Sendable { case correct, tellsPathsApart, tooFew, tooMany, dropsSmall }
        let mode: Mode
        var keys: KeySet? { FieldReformerTests.keys }
        func fieldsRead(from manager: ManagerRef) -> [String]? { ["city", "size"] }

        func reform(_ record: RecordFields, from manager: ManagerRef, into output: inout FieldOutput) throws(RecordError) {
            guard let city = record[0] else { throw RecordError(code: "no-city", message: "a listing needs a city") }
            if mode == .dropsSmall, case .int(let size)? = try record[1]?.value, size < 10 { return }
            if mode == .tellsPathsApart, city.text != nil {
                output.append(.string("from text"))
            } else {
                output.append(city)
            }
            if mode == .tooFew { return }
            if let size = record[1] { output.append(size) } else { output.appendNull() }
            if mode == .tooMany { output.append(.bool(true)) }
        }
    }

    final class CopyPlugin: ReformerPlugin {
        let name = "Copy"
        let mode: Copy.Mode
        init(_ mode: Copy.Mode) { self.mode = mode }
        var keys: KeySet? { FieldReformerTests.keys }
        func make(options: PluginOptions) -> Copy { Copy(mode: mode) }
    }

    static let samples: [String: [Value]] = [
        "listings": [
            .object(["city": "上海", "size": 42, "other": [1, 2]]),
            .object(["size": 2.5, "city": "esc \"q\"\n"]),
            .object(["city": .object(["nested": [true, .null]])]),
        ]
    ]

    func reform(_ mode: Copy.Mode, _ record: Value) throws(RecordError) -> [Value] {
        var reformer = Copy(mode: mode)
        var buffer = RecordBuffer(origin: Origin(manager: ManagerRef(index: 0, name: "listings"), sequence: 1))
        try reformer.reform(record, from: ManagerRef(index: 0, name: "listings"), into: &buffer)
        return buffer.records.map(\.value)
    }

    @Test func valuePathBuildsTheDeclaredKeysInOrder() throws {
        #expect(try reform(.correct, .object(["size": 3, "city": "x", "other": 1])) == [.object(["kCity": "x", "kSize": 3])])
        #expect(try reform(.correct, .object(["city": "x"])) == [.object(["kCity": "x", "kSize": .null])])
        let built = try reform(.correct, .object(["size": 3, "city": "x"]))
        #expect(built.first?.objectValue?.keys == ["kCity", "kSize"])
        #expect(try reform(.dropsSmall, .object(["city": "x", "size": 3])) == [])
    }

    @Test func valuePathRejectsWhatTheRulesForbid() {
        #expect(throws: RecordError(code: "no-city", message: "a listing needs a city")) { try reform(.correct, .object(["size": 1])) }
        #expect(throws: RecordError(code: "not-an-object", message: "Copy reads fields of object records; this one is array")) {
            try reform(.correct, [1, 2])
        }
        #expect(
            throws: RecordError(
                code: "missing-key", message: "reformer 'Copy' did not emit its declared key 'kSize' (appended 1 of 2 values)")
        ) {
            try reform(.tooFew, .object(["city": "x"]))
        }
        #expect(throws: RecordError(code: "undeclared-key", message: "reformer 'Copy' appended more values than its 2 declared keys")) {
            try reform(.tooMany, .object(["city": "x"]))
        }
    }

    @Test func conformanceKitPassesAReformerThatKeepsTheRules() {
        let report = ReformerConformance.check(CopyPlugin(.correct), samples: Self.samples)
        #expect(report.passed, "\(report)")
        let dropping = ReformerConformance.check(CopyPlugin(.dropsSmall), samples: Self.samples)
        #expect(dropping.passed, "\(dropping)")
    }

    @Test func conformanceKitCatchesAReformerThatTellsThePathsApart() {
        let report = ReformerConformance.check(CopyPlugin(.tellsPathsApart), samples: Self.samples)
        #expect(!report.passed)
        #expect(
            report.failures.contains(
                #"sample 1 of 'listings' gives {"kCity":"from text","kSize":42} on the fast path (fields as text) but {"kCity":"上海","kSize":42} as values; a FieldReformer must do the same on both"#
            ),
            "\(report)")
    }
}
