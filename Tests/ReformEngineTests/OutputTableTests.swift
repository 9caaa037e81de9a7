import ReformEngine
import ReformSDK
import Testing

extension OutputTests {
    struct Table {
        @Test func alignsByDisplayWidthWithEveryKeySeen() throws {
            // "Bob 🎉" is 6 columns, "上海" 4, "Zoë" 3; `count` holds only numbers, so it is right-aligned;
            // `meta`, first seen in the last record, still gets a column; the newline shows as `\n`.
            let expected: OutputTests.Rendered = #"""
                name    city   count  note               tags       meta
                ------  -----  -----  -----------------  ---------  ------------------------
                Alice   上海       3  say "hi", then go  ["a","b"]
                Bob 🎉  Paris   12.5  line1\nline2
                Zoe\#u{308}                   a|b                           {"k":1,"v":[true,false]}

                """#
            let actual = try OutputTests.render(.table, OutputTests.mixed)
            #expect(actual == expected)
        }

        @Test func cjkColumnsLineUp() throws {
            let records: [Value] = [
                ["city": "上海", "n": "a"], ["city": "Paris", "n": "b"], ["city": "東京都", "n": "c"],
                ["city": "서울", "n": "d"], ["city": "ＡＢ", "n": "e"],
            ]
            let lines = try OutputTests.render(.table, records).text.split(separator: "\n")
            #expect(lines.count == 7)
            // The second column starts at the same display column on every line.
            for line in lines {
                let beforeLast = line.dropLast()
                #expect(DisplayWidth.of(beforeLast) == 8, "\(line)")
            }
            #expect(lines[2] == "上海    a")
            #expect(lines[4] == "東京都  c")
        }

        @Test func controlCharactersAreEscapedSoTheGridHolds() throws {
            let records: [Value] = [["a": "tab\there", "b": "esc\u{1B}[31m del\u{7F} nel\u{85} cr\r"]]
            let actual = try OutputTests.render(.table, records)
            let expected: OutputTests.Rendered = #"""
                a          b
                ---------  --------------------------------------
                tab\there  esc\u001b[31m del\u007f nel\u0085 cr\r

                """#
            #expect(actual == expected)
        }

        @Test func explicitColumnsChooseOrderAndHeaders() throws {
            let columns = [OutputColumn(header: "Stadt", key: "city"), OutputColumn(header: "Wer", key: "name")]
            let actual = try OutputTests.render(.table, OutputTests.mixed, columns: columns)
            let expected: OutputTests.Rendered = """
                Stadt  Wer
                -----  ------
                上海   Alice
                Paris  Bob 🎉
                       Zoe\u{308}

                """
            #expect(actual == expected)
        }

        @Test func noColourMeansNoEscapeCodes() throws {
            let styles: [RowStyle] = [.highlight, .dim, .bold]
            let actual = try OutputTests.render(.table, OutputTests.mixed, styles: styles, colour: false)
            #expect(!actual.text.contains("\u{1B}"))
        }

        @Test func forcedColourStylesTheHeaderAndRows() throws {
            let records: [Value] = [["a": 1], ["a": 2], ["a": 3], ["a": 4]]
            let actual = try OutputTests.render(.table, records, styles: [.plain, .highlight, .dim, .bold], colour: true)
            let expected: OutputTests.Rendered =
                "\u{1B}[1ma\u{1B}[0m\n-\n1\n\u{1B}[1;33m2\u{1B}[0m\n\u{1B}[2m3\u{1B}[0m\n\u{1B}[1m4\u{1B}[0m\n"
            #expect(actual == expected)
        }

        @Test func maximumWidthCutsTheWidestColumnsFirst() throws {
            // 30 columns less two separators leave 26: `id` keeps 2, `title` (37) and `city` (14) get 12.
            let records: [Value] = [
                ["id": 1, "title": "A rather long title that will not fit", "city": "上海市浦东新区"],
                ["id": 22, "title": "Short", "city": "Paris"],
            ]
            let actual = try OutputTests.render(.table, records, maxWidth: 30)
            let expected: OutputTests.Rendered = """
                id  title         city
                --  ------------  ------------
                 1  A rather lo…  上海市浦东…
                22  Short         Paris

                """
            #expect(actual == expected)
            for line in actual.text.split(separator: "\n") { #expect(DisplayWidth.of(line) <= 30) }
        }

        @Test func tableThatFitsIsNotCut() throws {
            let actual = try OutputTests.render(.table, OutputTests.mixed, maxWidth: 200)
            let unlimited = try OutputTests.render(.table, OutputTests.mixed)
            #expect(actual == unlimited)
        }
    }

    struct Colour {
        @Test func autoColoursOnlyATerminalWithoutNoColor() {
            #expect(ColourMode.auto.isEnabled(isTerminal: true, noColour: nil))
            #expect(ColourMode.auto.isEnabled(isTerminal: true, noColour: ""))
            #expect(!ColourMode.auto.isEnabled(isTerminal: true, noColour: "1"))
            #expect(!ColourMode.auto.isEnabled(isTerminal: false, noColour: nil))
        }

        @Test func explicitModesWin() {
            #expect(ColourMode.always.isEnabled(isTerminal: false, noColour: "1"))
            #expect(!ColourMode.never.isEnabled(isTerminal: true, noColour: nil))
        }
    }

    struct Width {
        @Test(arguments: [
            ("abc", 3), ("上海", 4), ("ＡＢ", 4), ("서울", 4), ("かな", 4), ("🎉", 2), ("e\u{301}", 1),
            ("👨\u{200D}👩\u{200D}👧", 2), ("🇫🇷", 2), ("❤\u{FE0F}", 2), ("❤", 1), ("1\u{FE0F}\u{20E3}", 2),
            ("\u{200B}", 0), ("…", 1), ("", 0),
        ])
        func displayWidth(text: String, width: Int) {
            #expect(DisplayWidth.of(text) == width)
        }
    }
}
