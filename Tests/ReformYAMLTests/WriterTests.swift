import ReformSDK
import ReformYAML
import Testing

/// The writer's layout and quoting, and that loading what it writes gives the same value.
@Suite(.timeLimit(.minutes(10)))
struct WriterTests {
    private func roundTrips(_ value: Value) throws {
        let text = YAMLWriter().string(from: value)
        let loaded = try YAMLLoader().loadValues(text)
        #expect(loaded == [value], "wrote:\n\(text)")
    }

    private func keyed(_ key: String, _ value: Value) -> Value {
        var object = Object()
        object[key] = value
        return .object(object)
    }

    @Test func layout() {
        let value: Value = [
            "name": "reform",
            "count": 3,
            "ratio": 0.5,
            "on": true,
            "none": nil,
            "tags": ["a", ["b", "c"], ["k": 1, "l": [] as Value]],
            "nested": ["empty": [:] as Value, "list": [] as Value, "deep": ["x": "y"]],
        ]
        #expect(
            YAMLWriter().string(from: value) == """
                name: reform
                count: 3
                ratio: 0.5
                on: true
                none: null
                tags:
                  - a
                  - - b
                    - c
                  - k: 1
                    l: []
                nested:
                  empty: {}
                  list: []
                  deep:
                    x: y

                """)
    }

    @Test(arguments: [
        ("true", "\"true\""), ("123", "\"123\""), ("null", "\"null\""), ("", "\"\""), ("~", "\"~\""),
        ("0x1F", "\"0x1F\""), ("1e3", "\"1e3\""), (".inf", "\".inf\""), (" lead", "\" lead\""),
        ("trail ", "\"trail \""), ("a: b", "\"a: b\""), ("a #b", "\"a #b\""), ("#x", "\"#x\""),
        ("- x", "\"- x\""), ("*x", "\"*x\""), ("yes", "yes"), ("a:b", "a:b"), ("a#b", "a#b"),
        ("héllo wörld", "héllo wörld"), ("tab\there", "\"tab\\there\""), ("bell\u{07}", "\"bell\\a\""),
        ("one\ntwo", "|-\n  one\n  two"), ("one\ntwo\n", "|\n  one\n  two"), (" x\ny", "\" x\\ny\""),
        ("end:", "\"end:\""), ("...", "\"...\""), ("<<", "\"<<\""),
    ])
    func quotesStringsThatWouldReadDifferently(_ string: String, _ expected: String) throws {
        #expect(YAMLWriter().string(from: ["k": .string(string)]) == "k: \(expected)\n")
        try roundTrips(["k": .string(string)])
        try roundTrips(keyed(string, "v"))
        try roundTrips([.string(string)])
        try roundTrips(.string(string))
    }

    @Test func numbers() throws {
        #expect(
            YAMLWriter().string(from: [1.0, 1e-5, 1e300, .double(.infinity), .double(-.infinity)]) == """
                - 1.0
                - 1e-05
                - 1e+300
                - .inf
                - -.inf

                """)
        try roundTrips([.int(Int.max), .int(Int.min), 0.1, -0.0, 1e16])
        let nan = try YAMLLoader().loadValues(YAMLWriter().string(from: .double(.nan)))
        #expect(nan.first?.doubleValue?.isNaN == true)
    }

    @Test func awkwardStringsRoundTrip() throws {
        let strings = [
            "a\n\n", "a\n\nb", "\n", "a\r\nb", "x\u{85}y", "\u{FEFF}bom", "line \nbreak", "  \n  ", "\t",
            "a\n  indented\n", "#\n#", "- \n-", "ends with tab\t\nx", "\0nul", "quote\"s and \\ backslash",
            "emoji 🎉\nsecond", String(repeating: "long key ", count: 200),
        ]
        for string in strings {
            try roundTrips(["k": .string(string), "list": [.string(string), ["m": .string(string)]]])
            try roundTrips(keyed(string, .string(string)))
        }
    }

    @Test func documents() throws {
        let text = YAMLWriter().string(fromDocuments: [1, ["a": "b"], []])
        #expect(text == "---\n1\n---\na: b\n---\n[]\n")
        #expect(try YAMLLoader().loadValues(text) == [1, ["a": "b"], []])
    }
}
