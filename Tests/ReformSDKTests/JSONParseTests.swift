import ReformSDK
import Testing

@Suite(.timeLimit(.minutes(10))) struct JSONParseTests {
    @Test func scalarsAndContainers() throws {
        #expect(try JSON.parse("null") == .null)
        #expect(try JSON.parse(" true ") == .bool(true))
        #expect(try JSON.parse("[1, -2, 3.5, \"x\", false]") == [1, -2, 3.5, "x", false])
        let object = try JSON.parse(#"{"b": 1, "a": {"c": []}}"#)
        #expect(object.objectValue?.keys == ["b", "a"])
        #expect(object == ["b": 1, "a": ["c": []]])
    }

    @Test func integersAndDoubles() throws {
        guard case .int(let big) = try JSON.parse("9223372036854775807") else {
            Issue.record("not an int")
            return
        }
        #expect(big == Int.max)
        guard case .int(let small) = try JSON.parse("-9223372036854775808") else {
            Issue.record("not an int")
            return
        }
        #expect(small == Int.min)
        guard case .double(let over) = try JSON.parse("9223372036854775808") else {
            Issue.record("not a double")
            return
        }
        #expect(over == 9223372036854775808.0)
        guard case .double(let one) = try JSON.parse("1.0") else {
            Issue.record("1.0 is not a double")
            return
        }
        #expect(one == 1)
        guard case .double(let minusZero) = try JSON.parse("-0") else {
            Issue.record("-0 not a double")
            return
        }
        #expect(minusZero == 0 && minusZero.sign == .minus)
        #expect(try JSON.parse("1e2") == .double(100))
        #expect(try JSON.parse("0.1") == .double(0.1))
        #expect(try JSON.parse("123456789.123456789") == .double(123456789.123456789))
        #expect(try JSON.parse("2.2250738585072014e-308") == .double(2.2250738585072014e-308))
        #expect(try JSON.parse("0.000000000000000000000000000001") == .double(1e-30))
        #expect(try JSON.parse("1e1000") == .double(.greatestFiniteMagnitude))
        #expect(try JSON.parse("-1e1000") == .double(-.greatestFiniteMagnitude))
    }

    @Test func stringsAndEscapes() throws {
        #expect(try JSON.parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t"))
        #expect(try JSON.parse(#""\u00e9\u4e2d\ud83d\ude00""#) == .string("é中😀"))
        #expect(try JSON.parse("\"é中😀\"") == .string("é中😀"))
        // A lone surrogate escape decodes as U+FFFD, as jq does.
        #expect(try JSON.parse(#""\ud800x""#) == .string("\u{FFFD}x"))
        #expect(try JSON.parse(#""\udc00""#) == .string("\u{FFFD}"))
        #expect(try JSON.parse(#""\ud800\u0041""#) == .string("\u{FFFD}A"))
    }

    @Test func duplicateKeysKeepFirstPositionAndLastValue() throws {
        let value = try JSON.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(JSON.compactString(value) == #"{"a":3,"b":2}"#)
    }

    @Test func largeObjectsGetAnIndex() throws {
        let text = "{" + (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let object = try #require(try JSON.parse(text).objectValue)
        #expect(object.count == 100)
        #expect(object["k73"] == 73)
    }

    @Test func emptyBufferWithoutAnAddress() throws {
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        #expect(try JSON.parseSequence(empty) == [])
        #expect(throws: JSONError.self) { try JSON.parse(empty) }
    }

    @Test func sequences() throws {
        #expect(try JSON.parseSequence("1 [2]\n{\"a\":3}\n\n\"x\"") == [1, [2], ["a": 3], "x"])
        #expect(try JSON.parseSequence(" \n") == [])
        #expect(try JSON.parseSequence("12 3") == [12, 3])
    }

    @Test(arguments: [
        ("", "1:1: expected a value, found end of input"),
        ("[1,]", "1:4: expected a value, found ']'"),
        ("{\"a\":1 \"b\":2}", "1:8: expected ',' or '}' after an object member, found '\"'"),
        ("[1 2]", "1:4: expected ',' or ']' after an array element, found '2'"),
        ("{\"a\" 1}", "1:6: expected ':' after an object key, found '1'"),
        ("{1:2}", "1:2: expected a string key, found '1'"),
        ("{\"a\":1,}", "1:8: expected a string key, found '}'"),
        ("[1]\n x", "2:2: expected end of input after the value, found 'x'"),
        ("tru", "1:4: expected 'true', found end of input"),
        ("nul1", "1:4: expected 'null', found '1'"),
        ("01", "1:2: a number cannot have leading zeros"),
        ("-", "1:2: expected a digit after '-', found end of input"),
        ("1.", "1:3: expected a digit after the decimal point, found end of input"),
        ("1e+", "1:4: expected a digit in the exponent, found end of input"),
        ("\"abc", "1:1: unterminated string"),
        ("\"a\tb\"", "1:3: control character U+0009 must be escaped in a string"),
        ("\"\\x\"", "1:2: invalid escape '\\x' in a string"),
        ("\"\\u12G4\"", "1:2: expected 4 hex digits after '\\u'"),
        ("[\n  \"\u{FEFF}\", 'x']", "2:10: expected a value, found '''"),
    ])
    func errorMessages(input: String, expected: String) {
        #expect(throws: JSONError.self) { try JSON.parse(input) }
        do {
            _ = try JSON.parse(input)
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func invalidUTF8IsRejectedWithItsOffset() {
        let cases: [([UInt8], String)] = [
            ([0x22, 0x61, 0xC0, 0xAF, 0x22], "1:3: invalid UTF-8 byte 0xC0 in a string"),  // overlong '/'
            ([0x22, 0xED, 0xA0, 0x80, 0x22], "1:2: invalid UTF-8 sequence starting with byte 0xED in a string"),
            ([0x22, 0xE2, 0x82, 0x22], "1:2: invalid UTF-8 sequence starting with byte 0xE2 in a string"),
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "1:2: invalid UTF-8 sequence starting with byte 0xF4 in a string"),
            ([0x22, 0x80, 0x22], "1:2: invalid UTF-8 byte 0x80 in a string"),
        ]
        for (bytes, expected) in cases {
            do {
                _ = try JSON.parse(bytes)
                Issue.record("accepted \(bytes)")
            } catch {
                #expect(error.code == .encoding)
                #expect(error.description == expected)
            }
        }
    }

    @Test func errorCarriesLineColumnAndOffset() {
        do {
            _ = try JSON.parse("{\n  \"a\": [1,\n   x]}")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 4)
            #expect(error.offset == 16)
            #expect(error.code == .syntax)
        }
    }

    @Test func depthLimitIsAnErrorNotACrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        do {
            _ = try JSON.parse(deep)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .tooDeep)
            #expect(error.description == "1:513: nesting is deeper than the limit of 512 levels")
        }
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        _ = try JSON.parse(ok)
        let generous = JSONLimits(maximumDepth: 2_000)
        let fine = String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000)
        _ = try JSON.parse(fine, limits: generous)
    }

    @Test func sizeLimit() {
        #expect(
            throws: JSONError(code: .tooLarge, message: "document is 11 bytes, more than the limit of 10", line: 1, column: 1, offset: 0)
        ) {
            try JSON.parse("[1,2,3,4,5]", limits: JSONLimits(maximumDocumentSize: 10))
        }
    }

    @Test func relocatedErrors() {
        let error = JSONError(code: .syntax, message: "m", line: 1, column: 5, offset: 4)
        #expect(error.relocated(documentLine: 10, documentColumn: 3, documentOffset: 100).description == "10:7: m")
        #expect(error.relocated(documentLine: 10, documentColumn: 3, documentOffset: 100).offset == 104)
    }
}

@Suite(.timeLimit(.minutes(10))) struct JSONKeyTests {
    @Test func escapedAndPlainSpellingsOfAKeyAreOneKey() throws {
        let value = try JSON.parse(
            #"{"a":1,"\u0061":2,"long key of more than sixteen bytes":3,"long key of more than sixteen\u0020bytes":4}"#)
        #expect(JSON.compactString(value) == #"{"a":2,"long key of more than sixteen bytes":4}"#)
    }

    @Test func reusedParserKeepsKeysApart() throws {
        var parser = JSONParser()
        var texts: [String] = []
        for i in 0..<2000 { texts.append(#"{"k\#(i % 300)":\#(i),"x":1,"k\#(i % 300)x":2}"#) }
        for text in texts {
            var bytes = Array(text.utf8)
            let value = try bytes.withUnsafeMutableBytes { try parser.parse(UnsafeRawBufferPointer($0)) }
            #expect(JSON.compactString(value) == text)
        }
    }
}
