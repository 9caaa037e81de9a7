import ReformSDK
import Testing

@Suite(.timeLimit(.minutes(10))) struct JSONWriteTests {
    @Test(arguments: [
        (1e-5, "1e-05"), (1.5e-7, "1.5e-07"), (1e16, "1e+16"), (1e100, "1e+100"), (1e15, "1000000000000000"),
        (1.0, "1"), (-0.0, "-0"), (0.1, "0.1"), (0.0001, "0.0001"), (0.001234, "0.001234"),
        (123456789012345678.0, "123456789012345680"), (1e17, "1e+17"), (1.234567e20, "123456700000000000000"),
        (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"), (-2.5, "-2.5"),
        (123456789.123456789, "123456789.12345679"), (Double.infinity, "1.7976931348623157e+308"),
        (-Double.infinity, "-1.7976931348623157e+308"), (Double.nan, "null"), (1e21, "1e+21"), (3.0e-4, "0.0003"),
    ])
    func doublesAsJQ(value: Double, expected: String) {
        #expect(JSON.compactString(.double(value)) == expected)
    }

    @Test func intsAndEscapes() {
        #expect(JSON.compactString([0, -1, 42, .int(Int.max), .int(Int.min)]) == "[0,-1,42,9223372036854775807,-9223372036854775808]")
        let text = "q\"b\\/\u{08}\u{0C}\n\r\t\u{00}\u{1F}\u{7F}é😀\u{2028}"
        #expect(JSON.compactString(.string(text)) == #""q\"b\\/\b\f\n\r\t\u0000\u001f\u007fé😀\#u{2028}""#)
    }

    @Test func objectsKeepStoredOrder() {
        let value: Value = ["z": 1, "a": [true, nil, ["k": "v"]], "e": [:], "l": []]
        #expect(JSON.compactString(value) == #"{"z":1,"a":[true,null,{"k":"v"}],"e":{},"l":[]}"#)
    }

    @Test func prettyMatchesJQDot() {
        let value: Value = ["a": [], "b": [:], "c": [1, ["d": nil, "e": [true, "x"]]], "f": 1.5]
        let expected = """
            {
              "a": [],
              "b": {},
              "c": [
                1,
                {
                  "d": null,
                  "e": [
                    true,
                    "x"
                  ]
                }
              ],
              "f": 1.5
            }
            """
        #expect(JSON.prettyString(value) == expected)
        #expect(JSON.prettyString([]) == "[]")
        #expect(JSON.prettyString("s") == "\"s\"")
    }

    @Test func roundTrip() throws {
        let text = #"{"id":123456,"name":"Some name 123","tags":["a","b"],"price":12.5,"ok":true,"none":null}"#
        #expect(JSON.compactString(try JSON.parse(text)) == text)
    }
}
