import Foundation
@_spi(Engine) import ReformSDK
import ReformTestSupport
import Testing

/// `JSON.isWrittenForm` lets the engine copy a line instead of printing the record it parses to:
/// it must never say yes to a document the writer would print differently (every document of
/// JSONTestSuite and the cases below), and should say yes to what the writer prints.
@Suite(.timeLimit(.minutes(10))) struct JSONWrittenFormTests {
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

    /// Random documents as the writer prints them (nested objects and arrays, strings of quotes,
    /// backslashes, control characters, DEL and text past ASCII, integers and doubles): yes when
    /// every key is ASCII. The same documents pretty-printed, or with a member repeated: never a
    /// yes that printing the parsed value contradicts.
    @Test func randomDocumentsAsTheWriterPrintsThem() throws {
        var random = SeededGenerator(seed: 0x5EED_F0E1)
        var yes = 0
        for _ in 0..<400 {
            let value = Self.randomValue(depth: 0, using: &random)
            var printed: [UInt8] = []
            JSON.write(value, into: &printed)
            let asciiKeys = !Self.keys(of: value).contains { !$0.utf8.allSatisfy { $0 < 0x80 } }
            let written = printed.withUnsafeBytes { JSON.isWrittenForm($0) }
            #expect(written == asciiKeys, "\(String(decoding: printed, as: UTF8.self))")
            if written { yes += 1 }
            var variants = [Array(JSON.prettyString(value).utf8)]
            if printed.first == UInt8(ascii: "{"), printed.count > 2, let comma = printed.firstIndex(of: UInt8(ascii: ",")) {
                // The first member repeated after the rest (a document the parser accepts).
                variants.append(Array(printed.dropLast()) + [UInt8(ascii: ",")] + Array(printed[1..<comma]) + [UInt8(ascii: "}")])
            }
            for variant in variants {
                guard let parsed = try? JSON.parse(variant), variant.withUnsafeBytes({ JSON.isWrittenForm($0) }) else { continue }
                var again: [UInt8] = []
                JSON.write(parsed, into: &again)
                #expect(again == variant, "\(String(decoding: variant, as: UTF8.self))")
            }
        }
        #expect(yes > 200, "not vacuous")
    }

    /// A document with more keys open or deeper nesting than the check's first, stack-sized room
    /// is checked again with room for its limits: the same verdicts (a key repeated after the
    /// 32nd is still found); past the limits (512 keys open, 64 levels) it is unproven.
    @Test func documentsPastTheFirstRoomAreCheckedWhole() throws {
        func members(_ count: Int) -> String { (0..<count).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") }
        let many = "{" + members(40) + "}"
        let nested = "{\"a\":{" + members(20) + ",\"b\":{" + members(20) + "}}}"
        let deep = String(repeating: "[", count: 20) + #"{"x":"\/"}"# + String(repeating: "]", count: 20)
        let repeated = "{" + members(40) + #","k3":1}"#
        let tooMany = "{" + members(600) + "}"
        let tooDeep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        let cases: [(String, JSON.WrittenFormVerdict)] = [
            (many, .written), (nested, .written), (deep, .rewritable), (repeated, .unproven), (tooMany, .unproven),
            (tooDeep, .unproven),
        ]
        for (text, expected) in cases {
            let bytes = Array(text.utf8)
            _ = try JSON.parse(bytes, limits: JSONLimits(maximumDepth: 128, maximumDocumentSize: 1 << 20))
            #expect(bytes.withUnsafeBytes { JSON.writtenFormVerdict($0) } == expected, "\(text.prefix(40))")
        }
    }

    /// Documents that differ from the writer's bytes only in whitespace outside strings, numbers'
    /// forms and their strings' escapes (`\/`, a `\u` escape the writer would not write, a
    /// surrogate pair or a lone surrogate, a raw DEL): rewritten, they are what printing the parsed
    /// value gives.
    static let rewritable = [
        #"{"id": 1, "name": "spaced", "tags": ["a", "b"], "loc": {"lat": 31.25}}"#,
        " { \"a\" :\t[ 1 ,\r\n2 ] , \"e\" : { } , \"l\" : [ ] , \"s\" : \" keep  inner \\\" spaces \" }\n",
        #"[ "\/" , "\u00e9" ]"#, "  42  ", #"{"a":1}   "#,
        #"{"n":1.0,"m":12.50,"e":1E+2,"f":1e5,"g":-1.5e-7,"z":-0,"big":12345678901234567,"huge":1e400}"#,
        #"[0.10, -0.0, 123456789012345678901234567890, 1.000000000000000000001, 2.5E0, 0.0001, 0.00001]"#,
        #"{"url":"https:\/\/img.example.com\/a.jpg","n":1}"#,
        #"{"s":"\u00e9\u4E0A \u00C9","t":"plain"}"#,
        #"{"pair":"\ud83d\ude00","upper":"\uD83C\uDFE0"}"#,
        #"{"lone":"\ud83d","low":"\ude00x","then":"\ud83d\u0041","twice":"\ud83d\ud83d\ude00"}"#,
        #"{"c":"\u000A\u0022\u005C\u007F\u001F\u0008\u000d\u0041\u002f","keep":"\n\t\"\\\u0001"}"#,
        "{\"del\":\"a\u{7F}b\",\"d\":[\"\u{7F}\"]}",
        #"["\/",{"k":"\/"},"\u0000"]"#,
        #""\u00e9\/""#,
    ]

    /// Differences that are not only whitespace, numbers and escapes in values: not rewritten.
    static let notRewritable = [
        #"{"k\/":1}"#, #"{"\u0041":1}"#, "{\"k\u{7F}\":1}", #"{ "n" : 1.0, "n": 2 }"#,
        #"{"s":"\/","a":1,"a":2}"#, #"{"é":"\/"}"#,
    ]

    /// What a rewritable document is rewritten to: the writer's bytes.
    @Test(arguments: rewritable)
    func whitespaceAndEscapesOfValuesAreRewrittenAsTheWriterWritesThem(_ text: String) throws {
        let bytes = Array(text.utf8)
        let printed = JSON.compactString(try JSON.parse(bytes))
        #expect(printed != text, "not vacuous")
        #expect(bytes.withUnsafeBytes { JSON.writtenFormVerdict($0) } == .rewritable)
        #expect(!bytes.withUnsafeBytes { JSON.isWrittenForm($0) })
        var parser = JSONParser()
        var out: [UInt8] = [1]
        #expect(bytes.withUnsafeBytes { parser.appendWrittenForm(of: $0, to: &out) })
        #expect(String(decoding: out.dropFirst(), as: UTF8.self) == printed)
    }

    /// Anything else: unproven, and the writer's own bytes are written.
    @Test(arguments: notRewritable)
    func otherDifferencesAreUnproven(_ text: String) throws {
        let bytes = Array(text.utf8)
        _ = try JSON.parse(bytes)
        #expect(bytes.withUnsafeBytes { JSON.writtenFormVerdict($0) } == .unproven)
    }

    /// The writer's own bytes are `written`; rewriting them copies them.
    @Test(arguments: yes)
    func theWritersOwnBytesAreWritten(_ text: String) throws {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { JSON.writtenFormVerdict($0) } == .written)
        var parser = JSONParser()
        var out: [UInt8] = []
        #expect(bytes.withUnsafeBytes { parser.appendWrittenForm(of: $0, to: &out) })
        #expect(out == bytes)
    }

    /// Every JSONTestSuite document that parses and is not unproven: rewritten, it is what the
    /// writer prints.
    @Test func everyRewrittenSuiteDocumentIsWhatTheWriterPrints() throws {
        let folder = JSONConformanceTests.suiteFolder
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        var rewritten = 0
        var parser = JSONParser()
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            guard let value = try? JSON.parse(bytes) else { continue }
            let verdict = bytes.withUnsafeBytes { JSON.writtenFormVerdict($0) }
            guard verdict != .unproven else { continue }
            if verdict == .rewritable { rewritten += 1 }
            var printed: [UInt8] = []
            JSON.write(value, into: &printed)
            var out: [UInt8] = []
            #expect(bytes.withUnsafeBytes { parser.appendWrittenForm(of: $0, to: &out) }, "\(name)")
            #expect(out == printed, "\(name)")
        }
        #expect(rewritten > 5, "not vacuous")
    }

    /// Random documents whose strings are written with escapes other than the writer's (every
    /// `/` as `\/`, some characters as `\u` escapes in either case, astral ones as surrogate
    /// pairs), and the same documents pretty-printed: rewritable when their keys are ASCII and
    /// unescaped, and then rewritten to the writer's bytes.
    @Test func randomDocumentsWithOtherEscapesAreRewritten() throws {
        var random = SeededGenerator(seed: 0xE5C_A9E5)
        var rewritten = 0
        var parser = JSONParser()
        for _ in 0..<800 {
            let value = Self.randomValue(depth: 0, using: &random)
            var printed: [UInt8] = []
            JSON.write(value, into: &printed)
            var escaped = false
            let text = Self.writeEscapingOtherwise(value, escaped: &escaped, using: &random)
            let bytes = Array(text.utf8)
            #expect(try JSON.parse(bytes) == value)
            let verdict = bytes.withUnsafeBytes { JSON.writtenFormVerdict($0) }
            let asciiKeys = !Self.keys(of: value).contains { !$0.utf8.allSatisfy { $0 < 0x80 } }
            #expect((verdict == .unproven) == !asciiKeys, "\(text)")
            guard verdict != .unproven else { continue }
            #expect(verdict == (escaped ? .rewritable : .written), "\(text)")
            var out: [UInt8] = []
            #expect(bytes.withUnsafeBytes { parser.appendWrittenForm(of: $0, to: &out) })
            #expect(out == printed, "\(text)")
            if escaped { rewritten += 1 }
            // Pretty-printed, the writer's bytes are whitespace away.
            let pretty = Array(JSON.prettyString(value).utf8)
            out.removeAll()
            #expect(pretty.withUnsafeBytes { JSON.writtenFormVerdict($0) } != .unproven)
            #expect(pretty.withUnsafeBytes { parser.appendWrittenForm(of: $0, to: &out) })
            #expect(out == printed, "\(String(decoding: pretty, as: UTF8.self))")
        }
        #expect(rewritten > 80, "not vacuous")
    }

    /// `value` in the writer's layout, but its string values' characters escaped at random (keys
    /// as the writer writes them); `escaped` says whether an escape was not the writer's.
    static func writeEscapingOtherwise(_ value: Value, escaped: inout Bool, using random: inout SeededGenerator) -> String {
        switch value {
        case .string(let text):
            var out = "\""
            for scalar in text.unicodeScalars {
                let written = JSON.compactString(.string(String(scalar))).dropFirst().dropLast()
                if scalar == "/" {
                    out += "\\/"
                    escaped = true
                } else if Int.random(in: 0..<3, using: &random) == 0 {
                    let units = Array(String(scalar).utf16)
                    let upper = Bool.random(using: &random)
                    let escapes = units.map { "\\u" + String(format: upper ? "%04X" : "%04x", $0) }.joined()
                    if escapes != written { escaped = true }
                    out += escapes
                } else {
                    out += written
                }
            }
            return out + "\""
        case .array(let items):
            return "[" + items.map { writeEscapingOtherwise($0, escaped: &escaped, using: &random) }.joined(separator: ",") + "]"
        case .object(let object):
            let members = object.members.map {
                JSON.compactString(.string($0.key)) + ":" + writeEscapingOtherwise($0.value, escaped: &escaped, using: &random)
            }
            return "{" + members.joined(separator: ",") + "}"
        default:
            return JSON.compactString(value)
        }
    }

    static func randomValue(depth: Int, using random: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<(depth < 3 ? 8 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        // Numbers the writer prints without an exponent, in at most 15 digits (others it may print
        // the same, but the check does not prove it: the pretty variants hold them to soundness).
        case 2: return .int(Int.random(in: -1_000_000...1_000_000, using: &random) * (Bool.random(using: &random) ? 1 : 1_000_003))
        case 3: return .double(Double(Int.random(in: -10_000_000...10_000_000, using: &random)) / 1_000)
        case 4: return .string(randomText(using: &random))
        case 5, 6:
            var object = Object()
            for _ in 0..<Int.random(in: 0..<5, using: &random) {
                object[randomText(using: &random, short: true)] = randomValue(depth: depth + 1, using: &random)
            }
            return .object(object)
        default:
            return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in randomValue(depth: depth + 1, using: &random) })
        }
    }

    static func randomText(using random: inout SeededGenerator, short: Bool = false) -> String {
        let pieces = ["a", "b", "key", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é", "上海", "😀", " ", "x1"]
        let count = Int.random(in: (short ? 1 : 0)...(short ? 3 : 8), using: &random)
        let weights = short ? 13 : pieces.count
        return (0..<count).map { _ in pieces[Int.random(in: 0..<weights, using: &random) % pieces.count] }.joined()
    }

    static func keys(of value: Value) -> [String] {
        switch value {
        case .object(let object): object.members.flatMap { [$0.key] + keys(of: $0.value) }
        case .array(let items): items.flatMap { keys(of: $0) }
        default: []
        }
    }
}
