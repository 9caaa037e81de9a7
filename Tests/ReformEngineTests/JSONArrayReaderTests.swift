import Foundation
import ReformEngine
import ReformSDK
import Testing

@Suite(.timeLimit(.minutes(10))) struct JSONArrayReaderTests {
    static let chunkSizes = [1, 2, 3, 5, 7, 16, 64, 1 << 20]

    @Test(arguments: chunkSizes)
    func elementsOneAtATime(chunkSize: Int) throws {
        let text = """
            [
              {"id": 1, "tricky": "] , } [ { \\" \\\\"},
              [1, [2, 3]],
              "x",
              -1.5e3, true,null
            ]

            """
        let file = try TemporaryFile(text, suffix: ".json")
        defer { file.remove() }
        var reader = try JSONArrayReader(path: file.path, chunkSize: chunkSize)
        let got = try readAll(&reader)
        #expect(
            got == [
                #"2 4 0: {"id":1,"tricky":"] , } [ { \" \\"}"#,
                "3 46 1: [1,[2,3]]",
                "4 61 2: \"x\"",
                "5 68 3: -1500",
                "5 76 4: true",
                "5 81 5: null",
            ])
    }

    @Test(arguments: chunkSizes)
    func singleObjectIsOneRecord(chunkSize: Int) throws {
        let file = try TemporaryFile("\n {\"a\": [1, {\"b\": \"]\"}]}\n", suffix: ".json")
        defer { file.remove() }
        var reader = try JSONArrayReader(path: file.path, chunkSize: chunkSize)
        let got = try readAll(&reader)
        #expect(got == [#"2 2 0: {"a":[1,{"b":"]"}]}"#])
    }

    @Test func emptyArraysGiveNoRecords() throws {
        for text in ["[]", " [ \n ] \n"] {
            let file = try TemporaryFile(text, suffix: ".json")
            defer { file.remove() }
            var reader = try JSONArrayReader(path: file.path, chunkSize: 2)
            let got = try readAll(&reader)
            #expect(got == [], "\(text)")
        }
    }

    /// The records read before the damage (a single value comes out before the text after it is
    /// seen; the run fails all the same), then the error that stops the file, at its line and column.
    func damage(_ text: String, chunkSize: Int = 3) throws -> (records: [String], error: String?) {
        let file = try TemporaryFile(text, suffix: ".json")
        defer { file.remove() }
        var reader = try JSONArrayReader(path: file.path, chunkSize: chunkSize)
        var records: [String] = []
        do {
            while let record = try reader.next() { records.append(summary(record)) }
        } catch {
            return (records, error.description.replacingOccurrences(of: file.path, with: "in.json"))
        }
        return (records, nil)
    }

    /// A `.json` input is one document: nothing (an empty file) is not one, and a second document
    /// or any text after the first is not part of it (several documents belong in `.ndjson`).
    @Test(arguments: chunkSizes)
    func anEmptyFileOrTextAfterTheDocumentIsADamagedInput(chunkSize: Int) throws {
        let empty = "in.json:1:1: the file is empty; a .json input holds one JSON document (an array of records, or one record)"
        #expect(try damage("", chunkSize: chunkSize) == ([], empty))
        #expect(
            try damage("  \n", chunkSize: chunkSize)
                == ([], "in.json:2:1: the file is empty; a .json input holds one JSON document (an array of records, or one record)"))
        let after = "; a .json input holds one JSON document: put several, one a line, in a .ndjson or .jsonl file"
        #expect(
            try damage(#"{"a":true}"x""#, chunkSize: chunkSize)
                == ([#"1 0 0: {"a":true}"#], "in.json:1:11: text after the JSON value" + after))
        #expect(try damage("[][]", chunkSize: chunkSize) == ([], "in.json:1:3: text after the JSON array" + after))
        #expect(
            try damage("{\"a\":1}\n{\"a\":2}\n", chunkSize: chunkSize)
                == ([#"1 0 0: {"a":1}"#], "in.json:2:1: text after the JSON value" + after))
        #expect(
            try damage("[1, 2] x", chunkSize: chunkSize) == (["1 1 0: 1", "1 4 1: 2"], "in.json:1:8: text after the JSON array" + after))
        #expect(try damage("\"s\" \"t\"", chunkSize: chunkSize) == (["1 0 0: \"s\""], "in.json:1:5: text after the JSON value" + after))
    }

    @Test func anArrayThatNeverClosesIsADamagedInput() throws {
        let truncated = " (the array never closes: is the file cut short?)"
        #expect(
            try damage("[1, 2")
                == (["1 1 0: 1"], "in.json:1:6: expected ',' or ']' after an array element, found end of input" + truncated))
        #expect(try damage("[1,") == (["1 1 0: 1"], "in.json:1:4: expected a value or ']' in the array, found end of input" + truncated))
        #expect(try damage("[\"abc") == ([], "in.json:1:6: expected ',' or ']' after an array element, found end of input" + truncated))
    }

    @Test(arguments: chunkSizes)
    func badElementsAreReportedAndReadingGoesOn(chunkSize: Int) throws {
        let file = try TemporaryFile("[1,\n {\"a\": tru},\n 3, [4 5], 6,]", suffix: ".json")
        defer { file.remove() }
        var reader = try JSONArrayReader(path: file.path, chunkSize: chunkSize)
        let got = try readAll(&reader)
        #expect(
            got == [
                "1 1 0: 1",
                "2 5 1: error 2:11: expected 'true', found '}'",
                "3 18 2: 3",
                "3 21 3: error 3:8: expected ',' or ']' after an array element, found '5'",
                "3 28 4: 6",
                "3 30 5: error 3:14: expected a value, found ']'",
            ])
    }

    @Test func oversizedElementIsSkippedNotHeld() throws {
        let big = "[" + String(repeating: "\"xxxxxxxx\",", count: 100) + "1]"
        let file = try TemporaryFile("[{\"a\":1},\n\(big),\n{\"a\":2}]", suffix: ".json")
        defer { file.remove() }
        var reader = try JSONArrayReader(path: file.path, chunkSize: 16, limits: JSONLimits(maximumDocumentSize: 64))
        let got = try readAll(&reader)
        #expect(
            got == [
                "1 1 0: {\"a\":1}",
                "2 10 1: error 2:1: record is larger than the limit of 64 bytes (raise it with --max-record-bytes)",
                "3 1115 2: {\"a\":2}",
            ])
        #expect(reader.bufferCapacity <= 65)
    }

    @Test func largeArrayInBoundedMemory() throws {
        let path = NSTemporaryDirectory() + "reform-large-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let records = 100_000
        var chunk = "["
        for i in 0..<records {
            chunk += (i == 0 ? "\n" : ",\n") + #"  {"id":\#(i),"tags":["a","b"],"title":"Flat \#(i)"}"#
            if chunk.utf8.count > 1 << 20 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data((chunk + "\n]\n").utf8))
        try handle.close()
        var reader = try JSONArrayReader(path: path, chunkSize: 32 << 10)
        var count = 0
        var lastLine = 0
        while let record = try reader.next() {
            guard case .success = record.payload else {
                Issue.record("bad record \(summary(record))")
                break
            }
            count += 1
            lastLine = record.position.line
        }
        #expect(count == records)
        #expect(lastLine == records + 1)
        #expect(reader.bufferCapacity == 32 << 10)
    }

    @Test func formatFromPath() {
        #expect(InputFormat(path: "a/b.json") == .json)
        #expect(InputFormat(path: "a/b.ndjson") == .ndjson)
        #expect(InputFormat(path: "-") == .ndjson)
    }
}
