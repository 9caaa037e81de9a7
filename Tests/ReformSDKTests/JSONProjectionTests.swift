import Foundation
import ReformSDK
import Testing

/// ``JSONParser/parse(_:keeping:)``: builds only the kept members, checks everything else as strictly.
@Suite struct JSONProjectionTests {
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
