import ReformEngine
import ReformSDK
import Testing

extension OutputTests {
    struct NDJSON {
        @Test func writesCompactLinesLikeJqC() throws {
            let expected: OutputTests.Rendered = #"""
                {"name":"Alice","city":"上海","count":3,"note":"say \"hi\", then go","tags":["a","b"]}
                {"name":"Bob 🎉","city":"Paris","count":12.5,"note":"line1\nline2","tags":null}
                {"name":"Zoe\#u{308}","city":null,"count":null,"note":"a|b","meta":{"k":1,"v":[true,false]}}

                """#
            let actual = try OutputTests.render(.ndjson, OutputTests.mixed)
            #expect(actual == expected)
        }

        @Test func explicitColumnsProjectRenameAndFillNull() throws {
            let columns = [OutputColumn(header: "City", key: "city"), OutputColumn(key: "meta")]
            let expected: OutputTests.Rendered = #"""
                {"City":"上海","meta":null}
                {"City":"Paris","meta":null}
                {"City":null,"meta":{"k":1,"v":[true,false]}}

                """#
            let actual = try OutputTests.render(.ndjson, OutputTests.mixed, columns: columns)
            #expect(actual == expected)
        }

        @Test func nonObjectRecordsAreWrittenWholeWithoutColumns() throws {
            #expect(try OutputTests.render(.ndjson, [1, "two\u{1}", nil, [], [:]]) == "1\n\"two\\u0001\"\nnull\n[]\n{}\n")
        }

        @Test func nonObjectRecordWithColumnsIsAnError() {
            #expect(
                OutputTests.failure(.ndjson, [[1]], columns: [OutputColumn(key: "a")])
                    == "record 1 is an array, but ndjson output needs objects whose keys name the columns; "
                    + "write it with --format ndjson or json"
            )
        }

        @Test func manyRecordsStreamThroughFlushes() throws {
            let records = (0..<20_000).map { i -> Value in ["i": .int(i), "s": .string("row \(i)")] }
            let text = try OutputTests.render(.ndjson, records)
            let lines = text.text.split(separator: "\n")
            #expect(lines.count == 20_000)
            #expect(lines.first == #"{"i":0,"s":"row 0"}"#)
            #expect(lines.last == #"{"i":19999,"s":"row 19999"}"#)
        }
    }

    struct JSONArray {
        @Test func writesAnArrayLikeJqSlurp() throws {
            let expected: OutputTests.Rendered = #"""
                [
                  {
                    "name": "Alice",
                    "city": "上海",
                    "count": 3,
                    "note": "say \"hi\", then go",
                    "tags": [
                      "a",
                      "b"
                    ]
                  },
                  {
                    "name": "Bob 🎉",
                    "city": "Paris",
                    "count": 12.5,
                    "note": "line1\nline2",
                    "tags": null
                  },
                  {
                    "name": "Zoe\#u{308}",
                    "city": null,
                    "count": null,
                    "note": "a|b",
                    "meta": {
                      "k": 1,
                      "v": [
                        true,
                        false
                      ]
                    }
                  }
                ]

                """#
            let actual = try OutputTests.render(.json, OutputTests.mixed)
            #expect(actual == expected)
        }

        @Test func scalarsAndEmptyContainersStayOnOneLine() throws {
            #expect(try OutputTests.render(.json, [1, [], [:]]) == "[\n  1,\n  [],\n  {}\n]\n")
        }

        @Test func explicitColumnsProjectAndRename() throws {
            let columns = [OutputColumn(header: "who", key: "name"), OutputColumn(key: "missing")]
            let expected: OutputTests.Rendered = """
                [
                  {
                    "who": "Alice",
                    "missing": null
                  }
                ]

                """
            let actual = try OutputTests.render(.json, [OutputTests.mixed[0]], columns: columns)
            #expect(actual == expected)
        }
    }
}
