@_spi(Engine) import ReformSDK
import ReformTestSupport
import Testing

/// ``JSONParser/locateElements(ofChecked:into:canonical:)`` splits an array the locator has checked
/// without checking it again: on every valid array it must find the ranges and canonical flags
/// that checking ``JSONParser/locateElements(_:into:canonical:)`` finds.
@Suite(.timeLimit(.minutes(10))) struct JSONCheckedElementsTests {
    /// Elements that are hard to split: strings holding brackets, commas, escaped quotes and
    /// backslashes, DEL, non-ASCII text and long runs; numbers canonical or not; literals; nested
    /// containers holding all of these.
    static let elements = [
        #""plain""#, #""静安""#, #""a,b]c}""#, #""q\"uote""#, #""back\\""#, #""\\\"""#, "\"del\u{7F}\"", #""\u00e9\/""#,
        "\"" + String(repeating: "long text ", count: 12) + "\"", #""""#, "0", "-0", "12", "1.50", "1e3", "-12.25",
        "123456789012345678", "true", "false", "null", "[]", "{}", #"[1,"]",{"a":"}"}]"#, #"{"k":[{"x":"\"]"}],"y":null}"#,
        #"[[[["deep"]]]]"#,
    ]

    func split(_ text: String) -> (checked: (Bool, [Range<Int>], [Bool]), full: (Bool, [Range<Int>], [Bool])) {
        let bytes = Array(text.utf8)
        var parser = JSONParser()
        var ranges: [Range<Int>] = [0..<1, 0..<1, 0..<1]  // entries left from an earlier array
        var canonical: [Bool] = [true, true, true]
        let checked = bytes.withUnsafeBytes { parser.locateElements(ofChecked: $0, into: &ranges, canonical: &canonical) }
        var fullRanges: [Range<Int>] = []
        var fullCanonical: [Bool] = []
        let full = bytes.withUnsafeBytes { parser.locateElements($0, into: &fullRanges, canonical: &fullCanonical) }
        return ((checked, ranges, canonical), (full, fullRanges, fullCanonical))
    }

    @Test(arguments: elements)
    func eachElementAloneAndBetweenOthers(_ element: String) {
        for text in ["[\(element)]", "[ \(element) ]", "[1,\(element),\"x\"]", "[\n\t\(element) , \(element)\r\n]"] {
            let (checked, full) = split(text)
            #expect(full.0, "\(text)")
            #expect(checked.0 == full.0 && checked.1 == full.1 && checked.2 == full.2, "\(text)")
        }
    }

    @Test func randomArraysOfTheseElements() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<500 {
            let count = Int.random(in: 0...8, using: &random)
            let parts = (0..<count).map { _ in Self.elements.randomElement(using: &random)! }
            let text = "[" + parts.joined(separator: Bool.random(using: &random) ? "," : " , ") + "]"
            let (checked, full) = split(text)
            #expect(checked.0 == full.0 && checked.1 == full.1 && checked.2 == full.2, "\(text)")
        }
    }

    @Test func notAnArrayOrCutShortIsRefusedWithinTheBytes() {
        for text in ["", "{}", "1", "[", "[1,", "[\"abc", "[{\"a\":1}", "[1 2"] {
            var parser = JSONParser()
            var ranges: [Range<Int>] = []
            var canonical: [Bool] = []
            let found = Array(text.utf8).withUnsafeBytes { parser.locateElements(ofChecked: $0, into: &ranges, canonical: &canonical) }
            if text != "[1 2" { #expect(!found, "\(text)") }
            #expect(ranges.allSatisfy { $0.upperBound <= text.utf8.count }, "\(text)")
        }
    }
}
