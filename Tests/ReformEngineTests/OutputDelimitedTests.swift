import Foundation
import ReformEngine
import ReformSDK
import Testing

extension OutputTests {
    struct CSV {
        @Test func writesRFC4180WithLFAndColumnsFromTheFirstRecord() throws {
            // `meta` first appears in the third record, after the header was streamed: left out.
            let expected: OutputTests.Rendered = """
                name,city,count,note,tags
                Alice,上海,3,"say ""hi"", then go","[""a"",""b""]"
                Bob 🎉,Paris,12.5,"line1
                line2",
                Zoe\u{308},,,a|b,

                """
            let actual = try OutputTests.render(.csv, OutputTests.mixed)
            #expect(actual == expected)
        }

        @Test func explicitColumnsChooseOrderAndHeaders() throws {
            let columns = [OutputColumn(header: "Meta, nested", key: "meta"), OutputColumn(header: "Who", key: "name")]
            let expected: OutputTests.Rendered = """
                "Meta, nested",Who
                ,Alice
                ,Bob 🎉
                "{""k"":1,""v"":[true,false]}",Zoe\u{308}

                """
            let actual = try OutputTests.render(.csv, OutputTests.mixed, columns: columns)
            #expect(actual == expected)
        }

        /// Spreadsheet programs read a CSV file as UTF-8 (CJK text) only when it starts with the
        /// byte-order mark; it comes once, before the header, and never into an empty file.
        @Test func theByteOrderMarkComesFirstWhenAsked() throws {
            let folder = try TemporaryFolder()
            for (name, records, columns) in [
                ("rows", [["城市": "上海"]], nil), ("header only", [], [OutputColumn(key: "城市")]),
                ("nothing", [], nil),
            ] as [(String, [Value], [OutputColumn]?)] {
                let output = try OutputFile.atomic(path: folder.path + "/out.csv")
                var writer = OutputFormat.csv.makeWriter(columns: columns, output: output, byteOrderMark: true)
                for record in records { try writer.write(record) }
                try writer.finish()
                try output.commit()
                let bytes = [UInt8](try #require(FileManager.default.contents(atPath: folder.path + "/out.csv")))
                let text = Array("城市\n".utf8) + (records.isEmpty ? [] : Array("上海\n".utf8))
                #expect(bytes == (name == "nothing" ? [] : [0xEF, 0xBB, 0xBF] + text), "\(name)")
            }
            #expect(try OutputTests.render(.csv, [["a": 1]]) == "a\n1\n")
        }

        @Test func carriageReturnsAreQuotedAndALoneEmptyFieldIsNotABlankLine() throws {
            #expect(try OutputTests.render(.csv, [["a": "x\ry"], ["a": ""], ["a": nil]]) == "a\n\"x\ry\"\n\"\"\n\"\"\n")
        }
    }

    struct Markdown {
        @Test func writesAPipeTableWithEscapedCells() throws {
            let expected: OutputTests.Rendered = #"""
                | name | city | count | note | tags |
                | --- | --- | --- | --- | --- |
                | Alice | 上海 | 3 | say "hi", then go | \["a","b"] |
                | Bob 🎉 | Paris | 12.5 | line1 <br>line2 |  |
                | Zoe\#u{308} |  |  | a\|b |  |

                """#
            let actual = try OutputTests.render(.markdown, OutputTests.mixed)
            #expect(actual == expected)
        }

        /// API data is text, never markup: what CommonMark, GitHub's extensions or inline HTML
        /// would interpret reads as typed once the table is rendered (a `<script>` in a field ran).
        @Test func markdownAndHTMLInDataAreEscaped() throws {
            let records: [Value] = [
                ["v": "<script>alert(1)</script>"],
                ["v": "**bold** and _it_ and *em*"],
                ["v": "a|b"],
                ["v": "`code`"],
                ["v": "[link](javascript:x) ![img](y)"],
                ["v": "# not a heading"],
                ["v": "~~gone~~ $x$ \\ back"],
                ["v": "&copy; &#169; AT&T <b>"],
                ["v": "x > y #2"],
            ]
            let expected: OutputTests.Rendered = ##"""
                | v |
                | --- |
                | &lt;script&gt;alert(1)&lt;/script&gt; |
                | \*\*bold\*\* and \_it\_ and \*em\* |
                | a\|b |
                | \`code\` |
                | \[link](javascript:x) !\[img](y) |
                | \# not a heading |
                | \~\~gone\~\~ \$x\$ \\ back |
                | &amp;copy; &amp;#169; AT&T &lt;b&gt; |
                | x &gt; y #2 |

                """##
            #expect(try OutputTests.render(.markdown, records) == expected)
        }

        @Test func highlightedRowsStayBoldAroundEscapedText() throws {
            let style = RowStyle(emphasis: .highlight)
            let columns = [OutputColumn(header: "*k*", key: "v")]
            #expect(
                try OutputTests.render(.markdown, [["v": "*x*"]], styles: [style], columns: columns)
                    == "| \\*k\\* |\n| --- |\n| **\\*x\\*** |\n"
            )
        }

        /// A line break is the one HTML a cell gets (a pipe table has no other way to break a
        /// line), with a space before it, so a renderer that drops HTML still keeps the words
        /// apart ("one two", not "onetwo").
        @Test func explicitColumnsAndCRLFBreaks() throws {
            let columns = [OutputColumn(header: "A|B", key: "a")]
            #expect(
                try OutputTests.render(.markdown, [["a": "one\r\ntwo\rthree"]], columns: columns)
                    == "| A\\|B |\n| --- |\n| one <br>two <br>three |\n"
            )
        }
    }
}
