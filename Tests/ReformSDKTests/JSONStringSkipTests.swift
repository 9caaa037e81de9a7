import Foundation
@_spi(Engine) import ReformSDK
import ReformSystem
import ReformTestSupport
import Testing

/// Strings that are not plain ASCII, and plain ones of over 64 bytes, are skipped by a vector
/// kernel where the machine has one (AVX2: `SDK/Sources/CJSONVector`), 32 bytes at a time, and
/// byte by byte otherwise or when the kernel finds something wrong. Either way the locator must
/// accept exactly the documents ``JSONParser/parse(_:)`` accepts, and locate the same values:
/// here for UTF-8 sequences of every kind placed across the kernel's 32-byte chunks, escapes,
/// control characters, unterminated strings, random strings, and a document that ends at the end
/// of readable memory.
@Suite(.timeLimit(.minutes(10))) struct JSONStringSkipTests {
    /// The plan of `keep`, the one member these documents keep.
    static let plan = JSONLocatePlan(levels: [JSONProjection(keys: ["keep"])], children: [[]])

    /// Checks `string` (a JSON string with its quotes, valid or not) skipped and kept: the
    /// locator accepts it as parsing does, and a kept string's range holds what parsing gives.
    func check(_ string: [UInt8], _ note: @autoclosure () -> String) {
        let skipped = Array(#"{"skip":"#.utf8) + string + Array(#","keep":[1]}"#.utf8)
        let kept = Array(#"{"keep":"#.utf8) + string + Array("}".utf8)
        for document in [skipped, kept] {
            var parser = JSONParser()
            var ranges: [Range<Int>?] = []
            var canonical: [Bool] = []
            let located = document.withUnsafeBytes { parser.locate($0, plan: Self.plan, into: &ranges, canonical: &canonical) }
            let parsed = try? JSON.parse(document)
            guard located == (parsed != nil) else {
                Issue.record("locate \(located ? "accepted" : "refused") what parsing \(located ? "refused" : "accepted"): \(note())")
                return
            }
            guard let parsed, let range = ranges.first ?? nil else { continue }
            let value = try? JSON.parse(Array(document[range]))
            #expect(value == parsed[path: ValuePath([.key("keep")])], "\(note())")
            if canonical.first == true, let value {
                #expect(Array(JSON.compactString(value).utf8) == Array(document[range]), "canonical: \(note())")
            }
        }
    }

    /// `bytes` inside a string, after `lead` valid two-byte characters and `ascii` letters, so that
    /// they start at a chosen offset of the kernel's chunks (which start at the first non-ASCII byte).
    func string(_ bytes: [UInt8], after lead: Int, _ ascii: Int = 0) -> [UInt8] {
        [0x22] + Array(repeating: Array("é".utf8), count: lead).flatMap { $0 } + Array(repeating: 0x61, count: ascii) + bytes + [0x22]
    }

    /// Bytes worth trying after a lead byte: the ends of each continuation range, ASCII, the quote,
    /// the backslash, control characters, DEL and lead bytes.
    static let followers: [UInt8] = [
        0x00, 0x1F, 0x20, 0x22, 0x41, 0x5C, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xF0,
        0xF4, 0xF5, 0xFF,
    ]

    @Test(arguments: [0, 14, 15, 16, 17])
    func twoByteSequencesAcrossAChunkBoundary(_ lead: Int) {
        for first in UInt8(0x80)...UInt8(0xFF) {
            for second in Self.followers {
                check(string([first, second], after: lead), "\(lead) lead, \(first) \(second)")
            }
        }
    }

    @Test(arguments: [0, 15, 16])
    func threeByteSequencesAcrossAChunkBoundary(_ lead: Int) {
        for first in UInt8(0xE0)...UInt8(0xEF) {
            for second in Self.followers {
                for third in Self.followers {
                    check(string([first, second, third], after: lead), "\(lead) lead, \(first) \(second) \(third)")
                }
            }
        }
    }

    @Test(arguments: [0, 14, 15])
    func fourByteSequencesAcrossAChunkBoundary(_ lead: Int) {
        let rest: [UInt8] = [0x80, 0xBF, 0x41, 0xC0, 0x22]
        for first in UInt8(0xF0)...UInt8(0xF7) {
            for second in Self.followers {
                for third in rest {
                    for fourth in rest {
                        check(string([first, second, third, fourth], after: lead), "\(lead) lead, \(first) \(second) \(third) \(fourth)")
                    }
                }
            }
        }
    }

    /// Escapes (valid, invalid, cut short) and control characters at each offset around a chunk
    /// boundary, after non-ASCII text and after more than 64 bytes of ASCII.
    @Test func escapesAndControlCharactersAroundChunkBoundaries() {
        let pieces: [[UInt8]] = [
            #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#, #"\u00e9"#, #"\uD83D\uDE00"#, #"\uDC00"#, #"\u12G4"#,
            #"\u12"#, #"\q"#, #"\'"#, #"\\\""#, "\u{01}", "\t", "\u{1F}", "\u{7F}", "\u{7F}\u{7F}", "é\\",
        ].map { Array($0.utf8) }
        for piece in pieces {
            for offset in 0..<36 {
                check(string(piece, after: 1, offset), "\(piece) after 1 + \(offset)")
                check(string(piece, after: 0, 64 + offset), "\(piece) after \(64 + offset) ASCII")
            }
        }
    }

    /// Strings left open at the end of the document, inside a multi-byte sequence or an escape.
    @Test func unterminatedStrings() {
        for tail in ["", "静", "\\", "\\u12", "é"] {
            for length in [0, 1, 30, 31, 32, 33, 70] {
                let body = Array(repeating: Array("安".utf8), count: length / 3).flatMap { $0 } + Array(tail.utf8)
                for document in [[0x7B, 0x22, 0x73, 0x22, 0x3A, 0x22] + body, [0x7B, 0x22, 0x73, 0x22, 0x3A, 0x22] + body + [0xE9]] {
                    var parser = JSONParser()
                    var ranges: [Range<Int>?] = []
                    var canonical: [Bool] = []
                    #expect(!document.withUnsafeBytes { parser.locate($0, plan: Self.plan, into: &ranges, canonical: &canonical) })
                }
            }
        }
    }

    /// Random strings over an alphabet that favours what strings get wrong.
    @Test func randomStrings() {
        var random = SeededGenerator(seed: 16)
        let alphabet: [[UInt8]] = [
            [0x61], [0x20], [0x22], [0x5C], [0x5C, 0x6E], [0x5C, 0x75], [0x30], [0x46], [0x7F], [0x01], [0xC3, 0xA9], [0xC3],
            [0xA9], [0xE9, 0x9D, 0x99], [0xE9, 0x9D], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xFF], [0xC0, 0x80],
        ]
        for round in 0..<3000 {
            let length = Int.random(in: 0...120, using: &random)
            var body: [UInt8] = []
            for _ in 0..<length {
                // Mostly text, so that the strings are long enough to cross chunks before they break.
                if Int.random(in: 0..<10, using: &random) < 7 {
                    body += Bool.random(using: &random) ? [0x61] : [0xE9, 0x9D, 0x99]
                } else {
                    body += alphabet.randomElement(using: &random)!
                }
            }
            check([0x22] + body + [0x22], "round \(round): \(body)")
        }
    }

    /// A document that ends where readable memory does: the kernel reads the last bytes without
    /// reading past them (an inaccessible page follows; reading it would crash the tests).
    @Test func aDocumentAtTheEndOfReadableMemory() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let memory = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), memory != MAP_FAILED else {
            Issue.record("mmap failed")
            return
        }
        defer { munmap(memory, 2 * page) }
        #expect(mprotect(memory + page, page, PROT_NONE) == 0)
        for text in [
            #"{"keep":"静安静安","x":1}"#, #"{"x":"静安静安"}"#, #"{"x":"静安静安"#, #"{"keep":"é"#,
            "{\"x\":\"" + String(repeating: "a", count: 90) + "\"}",
        ] {
            let bytes = Array(text.utf8)
            let start = memory + page - bytes.count
            bytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            var parser = JSONParser()
            var ranges: [Range<Int>?] = []
            var canonical: [Bool] = []
            let located = parser.locate(
                UnsafeRawBufferPointer(start: start, count: bytes.count), plan: Self.plan, into: &ranges, canonical: &canonical)
            #expect(located == ((try? JSON.parse(text)) != nil), "\(text)")
        }
    }
}
