import Foundation
@_spi(Engine) import ReformSDK
import Testing

/// ``JSONParser/locate(_:plan:into:canonical:)`` finds nested members in one pass: each range must
/// hold what `value[path:]` of the fully parsed document holds, it must accept exactly the object
/// documents ``JSONParser/parse(_:)`` accepts (at every depth limit), and a canonical range must
/// be what the writer prints.
@Suite(.timeLimit(.minutes(10))) struct JSONLocatePlanTests {
    /// Paths `a`, `a.b`, `a.b.c`, `a.d`, `e`, `e.f` as a plan, with each path's entry.
    static let plan = JSONLocatePlan(
        levels: [
            JSONProjection(keys: ["a", "e"]), JSONProjection(keys: ["b", "d"]), JSONProjection(keys: ["c"]), JSONProjection(keys: ["f"]),
        ],
        children: [[1, 3], [2, nil], [nil], [nil]])
    static let paths: [(path: String, entry: Int)] = [
        ("a", plan.entry(level: 0, key: 0)), ("e", plan.entry(level: 0, key: 1)), ("a.b", plan.entry(level: 1, key: 0)),
        ("a.d", plan.entry(level: 1, key: 1)), ("a.b.c", plan.entry(level: 2, key: 0)), ("e.f", plan.entry(level: 3, key: 0)),
    ]

    static let documents = [
        #"{"a":{"b":{"c":1},"d":"x"},"e":{"f":[1,2.50]}}"#,
        #"{ "e" : { "f" : "\u00e9" } , "a" : { "d" : null , "b" : { "c" : { "deep" : [ ] } } } }"#,
        #"{"a":{"b":{"c":1}},"a":{"d":2}}"#,  // the last `a` wins: no `a.b` below it
        #"{"a":{"b":{"c":1},"b":7},"e":"not an object"}"#,
        #"{"a":[{"b":1}],"e":{}}"#,
        #"{"a":{"b":{"c":"静安","c":"q\"uote"}},"x":{"a":{"b":1}}}"#,
        #"{"a":{"b":{"c":1e2,"z":[[[[1]]]]}},"e":{"f":{"g":{"h":[true]}}}}"#,
        #"{"a":{"b":{"c":1},"d":[1,}}"#,  // invalid inside a located object
        #"{"a":{"b":{"c":1}} x"#,
        #"{"a":{"b":{"c" 1}}}"#,
        "[1,2]", "{}", #"{"a":{}}"#, #"{"a":{"b":{}}}"#, "{\"a\":\"\u{01}\"}",
    ]

    func located(_ text: String, depth: Int? = nil) -> (ok: Bool, ranges: [Range<Int>?], canonical: [Bool]) {
        var parser = JSONParser()
        if let depth { parser.limits.maximumDepth = depth }
        var ranges: [Range<Int>?] = []
        var canonical: [Bool] = []
        let ok = Array(text.utf8).withUnsafeBytes { parser.locate($0, plan: Self.plan, into: &ranges, canonical: &canonical) }
        return (ok, ranges, canonical)
    }

    @Test(arguments: documents)
    func eachPathHoldsWhatTheParsedDocumentHolds(_ text: String) throws {
        let result = located(text)
        let parsed = try? JSON.parse(text)
        guard case .object? = parsed else {
            #expect(!result.ok, "accepted: \(text)")
            return
        }
        #expect(result.ok, "refused: \(text)")
        let bytes = Array(text.utf8)
        for (path, entry) in Self.paths {
            let expected = parsed?[path: ValuePath(path.split(separator: ".").map { .key(String($0)) })]
            guard let range = result.ranges[entry] else {
                #expect(expected == nil, "\(path) missing in \(text)")
                continue
            }
            let found = try JSON.parse(String(decoding: bytes[range], as: UTF8.self))
            #expect(found == expected, "\(path) in \(text)")
            if result.canonical[entry] { #expect(JSON.compactString(found) == String(decoding: bytes[range], as: UTF8.self)) }
        }
    }

    /// A level's keys are found through a table by fingerprint: many kept keys, kept and skipped
    /// keys that share their first eight bytes or differ only in length, keys longer than a
    /// fingerprint, the empty key, non-ASCII and escaped keys.
    @Test func aWideLevelFindsEachKeptKeyAndNoOther() throws {
        let kept =
            ["", "a", "id", "location", "location_city", "location_name", "locationX", "a_very_long_key_of_more_than_16", "名字"]
            + (0..<40).map { "k\($0)" }
        let skipped =
            ["b", "location_cit", "location_cityy", "locatio", "a_very_long_key_of_more_than_17", "名", "i"] + (40..<80).map { "k\($0)" }
        let plan = JSONLocatePlan(levels: [JSONProjection(keys: kept)], children: [[]])
        var members = (kept + skipped).enumerated().map { #""\#($1)":\#($0)"# }
        members[2] = #""\u0069d":2"#  // `id`, escaped
        // The skipped keys come after the kept ones: one taken for a kept key would overwrite it.
        let text = "{" + members.joined(separator: ",") + "}"
        var parser = JSONParser()
        var ranges: [Range<Int>?] = []
        var canonical: [Bool] = []
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { parser.locate($0, plan: plan, into: &ranges, canonical: &canonical) })
        for (position, key) in kept.enumerated() {
            let range = try #require(ranges[plan.entry(level: 0, key: position)], "\(key) not found")
            #expect(String(decoding: bytes[range], as: UTF8.self) == String(position), "\(key)")
        }
    }

    @Test func acceptsWhatParsingAcceptsAtEveryDepthLimit() {
        let text = #"{"a":{"b":{"c":[{"x":[1]}]}},"e":{"f":{"g":[[2]]}},"z":[[[3]]]}"#
        for depth in 0...8 {
            var parser = JSONParser()
            parser.limits.maximumDepth = depth
            let parses = Array(text.utf8).withUnsafeBytes { raw in (try? parser.parse(raw, keeping: JSONProjection(keys: ["a"]))) != nil }
            #expect(located(text, depth: depth).ok == parses, "depth limit \(depth)")
            // The one-level locate too (the compiled paths' other way in).
            var ranges: [Range<Int>?] = []
            var canonical: [Bool] = []
            let topLevel = Array(text.utf8).withUnsafeBytes {
                parser.locate($0, keeping: JSONProjection(keys: ["e"]), into: &ranges, canonical: &canonical)
            }
            #expect(topLevel == parses, "depth limit \(depth), one level")
        }
    }

    /// A member no path reads is skipped with its containers kept as bits up to 64 levels and
    /// skipped again with a growing stack past that: both ways accept what parsing accepts, at
    /// depths around 64 and the limit, and reject what it rejects inside the deep part.
    @Test(arguments: [63, 64, 65, 66, 130, 511, 512, 513])
    func skipsMembersNestedPastSixtyFourLevels(_ levels: Int) {
        let open = (0..<levels).map { $0 % 2 == 0 ? "[" : #"{"k":"# }.joined()
        let close = (0..<levels).reversed().map { $0 % 2 == 0 ? "]" : "}" }.joined()
        for inner in ["1", #""x","# + "1"] {
            let text = #"{"skipped":"# + open + inner + close + #","a":{"b":{"c":7}}}"#
            var parser = JSONParser()
            let parses = Array(text.utf8).withUnsafeBytes { (try? parser.parse($0)) != nil }
            let result = located(text)
            #expect(result.ok == parses, "\(levels) levels, inner \(inner)")
            if parses { #expect(result.ranges[Self.paths[4].entry] != nil) }
        }
    }
}
