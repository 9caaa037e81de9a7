import Foundation
@_spi(Engine) import ReformSDK
import Testing

/// ``JSONParser/parse(_:keeping:)``: builds only the kept members, checks everything else as strictly.
@Suite(.timeLimit(.minutes(10))) struct JSONProjectionTests {
    func project(_ text: String, _ keys: [String]) -> Result<Value, JSONError> {
        var parser = JSONParser()
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw in Result { () throws(JSONError) in try parser.parse(raw, keeping: JSONProjection(keys: keys)) }
        }
    }

    @Test func keepsOnlyTheNamedMembersInDocumentOrder() throws {
        let text = #"{"b":[1,{"x":"\u00e9"}],"id":7,"skip":{"deep":[true,null,"s\"q"]},"name":"静安","id2":1e3}"#
        #expect(try project(text, ["name", "id", "missing"]).get() == ["id": 7, "name": "静安"])
        #expect(JSON.compactString(try project(text, ["name", "id"]).get()) == #"{"id":7,"name":"静安"}"#)
        #expect(try project(#"{"a":1,"a":2}"#, ["a"]).get() == ["a": 2])
        #expect(try project("[1,2]", ["a"]).get() == [1, 2])  // not an object: parsed in full
        #expect(try project("{}", ["a"]).get() == .object(Object()))
    }

    @Test func skippedMembersAreCheckedAsStrictlyAsFullParsing() {
        let bad = [
            #"{"keep":1,"skip":[1,}"#, #"{"skip":"a\x"}"#, #"{"skip":tru,"keep":1}"#, #"{"skip":01}"#,
            #"{"skip":{"k" 1}}"#, "{\"skip\":\"\u{01}\"}", #"{"skip":[1 2]}"#, #"{"keep":1,}"#, #"{"skip":1} x"#,
            #"{"skip":"\u12G4"}"#, #"{"skip":"\u12"}"#, #"{"skip":"a\"#, #"{"skip":"\uD800\uZZZZ"}"#, #"{"skip":"\'"}"#,
            #"{"skip":["\/","\q"]}"#,
        ]
        for text in bad {
            guard case .failure(let projected) = project(text, ["keep"]) else {
                Issue.record("accepted: \(text)")
                continue
            }
            guard case .failure(let full) = Result(catching: { () throws(JSONError) in try JSON.parse(text) }) else {
                Issue.record("full parse accepted: \(text)")
                continue
            }
            #expect(projected.message == full.message, "\(text)")
            #expect(projected.column == full.column, "\(text)")
        }
    }

    @Test func skippedStringsTakeEveryValidEscape() throws {
        let skipped = #""\/\b\f\n\r\t\\\"\u00e9\uD83C\uDFE0\uD800x\uDC00""#
        #expect(try project(#"{"skip":"# + skipped + #","keep":1,"more":["# + skipped + "]}", ["keep"]).get() == ["keep": 1])
    }

    @Test func deeplyNestedSkippedMembersAreMatchedPastSixtyFourLevels() throws {
        let opens = (0..<100).map { $0 % 3 == 0 ? "{\"k\":" : "[" }
        let closes = opens.reversed().map { $0 == "[" ? "]" : "}" }
        let nested = opens.joined() + "1" + closes.joined()
        #expect(try project(#"{"skip":"# + nested + #","keep":2}"#, ["keep"]).get() == ["keep": 2])
        var wrong = closes
        wrong[30] = wrong[30] == "]" ? "}" : "]"  // a mismatched bracket 70 levels down
        #expect(throws: JSONError.self) { try project(#"{"skip":"# + opens.joined() + "1" + wrong.joined() + "}", ["keep"]).get() }
    }

    @Test func jsonTestSuiteThroughTheProjection() throws {
        let folder = JSONConformanceTests.suiteFolder
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        var accepted = 0
        var rejected = 0
        for name in names.sorted() where name.first == "y" || name.first == "n" {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            var parser = JSONParser()
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(JSONError) in try parser.parse(raw, keeping: JSONProjection(keys: ["a"])) }
            }
            switch (name.first, result) {
            case ("y", .success): accepted += 1
            case ("n", .failure): rejected += 1
            default: Issue.record("\(name): \(result)")
            }
        }
        #expect(accepted == 95)
        #expect(rejected == 188)
    }
}

/// `locate` marks a number canonical only when the writer prints exactly its text, so the fast
/// paths may copy it: held over numbers of every shape, and the usual short decimals are marked.
@Suite(.timeLimit(.minutes(10))) struct CanonicalNumberTests {
    func located(_ literal: String) -> (canonical: Bool, written: String) {
        var parser = JSONParser()
        var ranges: [Range<Int>?] = []
        var canonical: [Bool] = []
        let bytes = Array(#"{"x":"#.utf8) + Array(literal.utf8) + Array("}".utf8)
        let found = bytes.withUnsafeBytes { parser.locate($0, keeping: JSONProjection(keys: ["x"]), into: &ranges, canonical: &canonical) }
        #expect(found, "\(literal) should be valid")
        var out: [UInt8] = []
        JSON.write((try? JSON.parse(literal)) ?? .null, into: &out)
        return (canonical.first ?? false, String(decoding: out, as: UTF8.self))
    }

    /// Digits are read eight at a time while eight bytes are left: numbers of every length, kept
    /// and skipped, before other bytes and at the document's end, are read whole, and the
    /// invalid ones are refused.
    @Test func numbersOfEveryLengthAreReadWhole() {
        for length in 1...24 {
            let digits = String(repeating: "7", count: length)
            for number in [digits, "-" + digits, digits + ".5", "0." + digits, "-1." + digits + "e+12", digits + "E3"] {
                for text in [#"{"skip":"# + number + #","x":"# + number + "}", #"{"x":"# + number + #","skip":"静"}"#] {
                    var parser = JSONParser()
                    var ranges: [Range<Int>?] = []
                    var canonical: [Bool] = []
                    let bytes = Array(text.utf8)
                    let found = bytes.withUnsafeBytes {
                        parser.locate($0, keeping: JSONProjection(keys: ["x"]), into: &ranges, canonical: &canonical)
                    }
                    #expect(found, "\(text)")
                    #expect(ranges.first?.map { String(decoding: bytes[$0], as: UTF8.self) } == number, "\(text)")
                }
            }
            for invalid in ["0" + digits, digits + ".", digits + "e", "-" + digits + ".e1", digits + "x"] {
                var parser = JSONParser()
                var ranges: [Range<Int>?] = []
                var canonical: [Bool] = []
                let text = #"{"skip":"# + invalid + #","x":1}"#
                let found = Array(text.utf8).withUnsafeBytes {
                    parser.locate($0, keeping: JSONProjection(keys: ["x"]), into: &ranges, canonical: &canonical)
                }
                #expect(!found, "\(invalid)")
            }
        }
    }

    @Test func aCanonicalNumberIsPrintedAsItIsWritten() {
        var random = SystemRandomNumberGenerator()
        var literals = [
            "0", "-0", "0.5", "-0.5", "31.479471", "0.0001", "0.00001", "1.0", "1.50", "1e2", "1E+2", "-12.25",
            "99999999999999.9", "999999999999999.9", "123456789012345", "1234567890123456", "0.1234567890123456",
            "0.000123456789012345", "100", "5.000000000000001", "9007199254740993",
        ]
        for _ in 0..<3000 {
            let digits = (0..<Int.random(in: 1...18, using: &random)).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            var literal = (Bool.random(using: &random) ? "-" : "") + digits
            if Bool.random(using: &random) {
                let zeros = String(repeating: "0", count: Int.random(in: 0...5, using: &random))
                let fraction = (0..<Int.random(in: 1...17, using: &random)).map { _ in String(Int.random(in: 0...9, using: &random)) }
                    .joined()
                literal = (Bool.random(using: &random) ? "-" : "") + "0." + zeros + fraction
            }
            guard (try? JSON.parse(literal)) != nil else { continue }
            literals.append(literal)
        }
        for literal in literals {
            let (canonical, written) = located(literal)
            if canonical { #expect(written == literal, "\(literal) is marked canonical but prints as \(written)") }
        }
        for literal in ["0", "0.5", "-0.5", "31.479471", "0.0001", "-12.25", "99999999999999.9", "123456789012345"] {
            #expect(located(literal).canonical, "\(literal) should be canonical")
        }
    }
}
