import ReformSDK
import Testing

/// Objects of many members parse in time linear in their count, with the duplicate-key rule of
/// small ones: a repeated key keeps its first position and takes the last value (reliability
/// audit r2 M5: each key was compared with every earlier one, 40,000 members took 19 s).
@Suite(.timeLimit(.minutes(10))) struct JSONLargeObjectTests {
    @Test func anObjectOf200000MembersParses() throws {
        let count = 200_000
        let text = "{" + (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let object = try #require(try JSON.parse(text).objectValue)
        #expect(object.count == count)
        #expect(object.keys.first == "k0" && object.keys.last == "k199999")
        #expect(object["k123456"] == 123_456)
    }

    /// A key of the object at `index`: short ones are told apart by their bytes, long ones (past
    /// 16 bytes) as strings, so both kinds repeat.
    static func key(_ index: Int) -> String {
        index.isMultiple(of: 2) ? "k\(index)" : "a key longer than sixteen bytes, number \(index)"
    }

    @Test(arguments: [10, 31, 32, 33, 1_000, 50_000])
    func repeatedKeysKeepTheirFirstPlaceAndTakeTheLastValue(count: Int) throws {
        var members = (0..<count).map { "\"\(Self.key($0))\":\($0)" }
        // Each key of the first ten again, late, with a new value; and the first one written with
        // an escape (`\u006b` is `k`), which parses to the same key.
        members += (0..<10).map { "\"\(Self.key($0))\":\(-$0 - 1)" }
        members.append(#""\u006b0":"escaped""#)
        let object = try #require(try JSON.parse("{" + members.joined(separator: ",") + "}").objectValue)
        #expect(object.count == count)
        #expect(object.keys == (0..<count).map(Self.key))
        #expect(object[Self.key(0)] == "escaped")
        for index in 1..<10 { #expect(object[Self.key(index)] == .int(-index - 1)) }
        if count > 10 { #expect(object[Self.key(count - 1)] == .int(count - 1)) }
    }

    @Test func keysEqualAsTextButNotAsBytesStayTwoKeysInAnyObject() throws {
        // "é" precomposed and decomposed: two short keys of different bytes, as the parser has
        // always kept them (a small object compares fingerprints of the bytes).
        for filler in [0, 100] {
            let members = (0..<filler).map { "\"f\($0)\":0" } + [#""\u00e9":1"#, #""e\u0301":2"#]
            let object = try #require(try JSON.parse("{" + members.joined(separator: ",") + "}").objectValue)
            #expect(object.count == filler + 2, "with \(filler) other members")
        }
    }
}
