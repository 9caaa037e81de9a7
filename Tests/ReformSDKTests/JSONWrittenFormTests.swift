import Foundation
import ReformSDK
import Testing

/// `JSON.isWrittenForm` lets the engine copy a line instead of printing the record it parses to:
/// it must never say yes to a document the writer would print differently (every document of
/// JSONTestSuite and the cases below), and should say yes to what the writer prints.
@Suite struct JSONWrittenFormTests {
    static let yes = [
        #"{"id":1,"name":"plain","tags":["a","b"],"loc":{"lat":31.25,"ok":true},"none":null}"#,
        #"{"q":"say \"hi\"\\ \b\f\n\r\t \u0000 \u001f \u007f","cjk":"上海 😀","empty":"","e":{},"l":[]}"#,
        #"[1,-2,0.5,-0.25,0.0001,123456789012345,"x",false]"#,
        #""a string""#, "42", "null",
        // A key repeated in another object is no repeat.
        #"{"k":{"k":1},"j":[{"k":2},{"k":3}]}"#,
    ]

    static let no = [
        #"{ "id":1}"#, #"{"id":1} "#, #"[1, 2]"#,
        #"{"s":"\u00e9"}"#, #"{"s":"\/"}"#, #"{"s":"\u000A"}"#, #"{"s":"\u001F"}"#, #"{"s":"\ud83d\ude00"}"#,
        "{\"s\":\"del \u{7F}\"}",
        #"{"n":1.0}"#, #"{"n":1E+2}"#, #"{"n":-0}"#, #"{"n":0.10}"#, #"{"n":1e5}"#, #"{"n":12345678901234567}"#,
        #"{"a":1,"a":2}"#, #"{"o":{"k":1,"k":1}}"#, "{\"e\u{301}\":1,\"é\":2}",
        // Printed the same, but not proven: a key past ASCII may equal another under Unicode
        // equivalence; an exponent or more than 15 digits is left to the writer.
        #"{"é":1}"#, "[1e-05,1e+17]", "[1234567890123456]",
    ]

    /// The writer's own bytes: yes (and printing the parsed value gives them back).
    @Test(arguments: yes)
    func yesToTheWritersOwnBytes(_ text: String) throws {
        let bytes = Array(text.utf8)
        #expect(JSON.compactString(try JSON.parse(bytes)) == text)
        #expect(bytes.withUnsafeBytes { JSON.isWrittenForm($0) })
    }

    /// Anything else the parser accepts: no.
    @Test(arguments: no)
    func noToAnythingElse(_ text: String) throws {
        let bytes = Array(text.utf8)
        _ = try JSON.parse(bytes)
        #expect(!bytes.withUnsafeBytes { JSON.isWrittenForm($0) })
    }

    /// Every document JSONTestSuite has that parses: never a yes the writer would not print.
    @Test func neverYesToADocumentPrintedOtherwise() throws {
        let folder = JSONConformanceTests.suiteFolder
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(names.count > 300)
        var yes = 0
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            guard let value = try? JSON.parse(bytes) else { continue }
            guard bytes.withUnsafeBytes({ JSON.isWrittenForm($0) }) else { continue }
            yes += 1
            var printed: [UInt8] = []
            JSON.write(value, into: &printed)
            #expect(printed == bytes, "\(name)")
        }
        #expect(yes > 10, "not vacuous")
    }
}
