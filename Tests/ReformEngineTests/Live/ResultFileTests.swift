import Foundation
@_spi(Fuzzing) import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// An export job's result files streamed to disk as they arrive and their records read from there
/// a chunk at a time (issue 40): a file past the body limit lands whole through either client; a
/// bad CSV row is dead-lettered while the rest lands; a truncated file lands nothing of itself;
/// the files are recorded beside their exchanges and replayed; and CSV read in chunks of any size
/// gives the rows the same text read whole does (generated inputs).
@Suite(.timeLimit(.minutes(10))) struct ResultFileTests {
    /// An export manager of CSV result files; `spec` is the create body's JSON.
    static func pipeline(_ spec: String, extra: String = "", manager: String = "") -> String {
        ExportJobTests.pipeline(spec, extra: extra).replacing("    format: ndjson\n", with: "    format: csv\n" + manager)
    }

    /// `export.yaml` in `folder`: the export of `spec` as NDJSON on standard output.
    static func write(_ spec: String, to folder: TemporaryFolder, manager: String = "") throws -> String {
        try folder.write(
            "export.yaml", pipeline(spec, extra: "runs: { default: { output: { format: ndjson } } }", manager: manager))
    }

    /// Runs the export of `spec` live with `--record` (fixtures in `folder`/fixtures/export),
    /// checking it succeeded: the pipeline's path and what the run printed.
    static func record(_ spec: String, in folder: TemporaryFolder, options: [String] = []) async throws -> (String, ReformBinary.Outcome) {
        let server = try TestServer()
        let pipeline = try write(spec, to: folder, manager: "    fixtures: fixtures/export\n")
        let recorded = try await ReformBinary.run(
            ["run", pipeline, "--record", "--quiet"] + options, environment: ["TEST_URL": server.url, "TOKEN": "job-token"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        return (pipeline, recorded)
    }

    @Test(arguments: [LiveTransport.Client.builtIn, .asyncHTTPClient])
    func aResultFileLargerThanTheBodyLimitIsStreamed(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            ResultFileTests.pipeline(#"{ rows: 20000, parts: 2, polls: 0, format: csv }"#), environment: ["TOKEN": "job-token"])
        // Each gzip file is about 200 KB, and 700 KB inflated: far past a 16 KiB limit.
        let manager = try server.manager(
            "export", in: pipeline, environment: ["TOKEN": "job-token"], transport: LiveTransport(maxBodyBytes: 16 << 10, client: client),
            streamsBodies: true)
        let first = try await manager.load()
        #expect(first.records.isEmpty)
        let file = try #require(first.recordFile)
        #expect(file.file.byteCount > 300_000, "stored inflated: \(file.file.byteCount)")
        #expect(first.response.byteCount < file.file.byteCount, "the wire bytes were compressed")
        var records = try first.allRecords()
        while let next = try await manager.loadNextPage() { records += try next.allRecords() }
        #expect(records.count == 20000)
        #expect(records.first == ["id": "1", "name": "item 1", "price": "1.25", "note": ""])
        #expect(records[3].objectValue?["note"] == "says \"hi\", 4")
        #expect(records[8].objectValue?["note"] == "line one\nline 9")
        #expect(records[4].objectValue?["name"] == "商品 5")
        #expect(records.last?.objectValue?["id"] == "20000")
    }

    /// The service's `timeout` bounds each wait for the next piece of a result file, not the
    /// whole file: five pieces 0.4 s apart take 1.6 s against a timeout of 1 s.
    @Test(arguments: [LiveTransport.Client.builtIn, .asyncHTTPClient])
    func aResultFileMayTakeLongerThanTheTimeoutWhileItKeepsComing(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let yaml = ResultFileTests.pipeline(#"{ rows: 2000, parts: 1, polls: 0, format: csv, trickle: 0.4 }"#)
            .replacing("timeout: 5s", with: "timeout: 1s")
        let pipeline = try server.pipeline(yaml, environment: ["TOKEN": "job-token"])
        let manager = try server.manager(
            "export", in: pipeline, environment: ["TOKEN": "job-token"], transport: LiveTransport(client: client), streamsBodies: true)
        let (records, _, _) = try await manager.loadAll()
        #expect(records.count == 2000)
        // A file that stops coming for longer than the timeout still fails.
        let stalled = try server.pipeline(yaml.replacing("trickle: 0.4", with: "trickle: 2.5"), environment: ["TOKEN": "job-token"])
        let stalling = try server.manager(
            "export", in: stalled, environment: ["TOKEN": "job-token"], transport: LiveTransport(client: client), streamsBodies: true)
        do {
            _ = try await stalling.load()
            Issue.record("a stalled file landed")
        } catch {
            #expect(error.kind == .timeout, "\(error)")
            #expect("\(error)".contains("the download stopped: no data for 1 s after "), "\(error)")
        }
    }

    /// A JSON result file whose records sit under a path of keys (`data.items`) is read element
    /// by element past the body limit, as a top-level array is.
    @Test func aJSONResultFileUnderARecordsPathIsStreamed() async throws {
        let server = try TestServer()
        let yaml = ExportJobTests.pipeline(#"{ rows: 5000, parts: 2, polls: 0, format: json }"#)
            .replacing("    format: ndjson\n", with: "    format: json\n    records: data.items\n")
        let pipeline = try server.pipeline(yaml, environment: ["TOKEN": "job-token"])
        let manager = try server.manager(
            "export", in: pipeline, environment: ["TOKEN": "job-token"], transport: LiveTransport(maxBodyBytes: 16 << 10),
            streamsBodies: true)
        let first = try await manager.load()
        #expect(first.recordFile != nil)
        let (records, _, _) = try await manager.loadAll()
        #expect(records.count == 5000)
        #expect(records[4] == ["id": 5, "name": "商品 5", "price": 6.25, "tags": ["t2"]])
    }

    /// A manager that does not page (a download: an open-data portal's CSV) is streamed alike;
    /// a paged one holds its pages, whose records its paging decides on.
    @Test func aDownloadThatDoesNotPageIsStreamed() async throws {
        let server = try TestServer()
        func manager(_ extra: String, bad: Bool = false) -> String {
            service() + "\nmanagers:\n  m: { service: api, path: /csv, format: csv, "
                + "params: { per_page: 10000, total: 10000\(bad ? ", bad: 1" : "") }\(extra) }\n"
        }
        let download = try server.manager(
            "m", in: server.pipeline(manager("")), transport: LiveTransport(maxBodyBytes: 16 << 10), streamsBodies: true)
        let landing = try await download.load()
        #expect(landing.recordFile != nil && landing.isLast)
        let records = try landing.allRecords()
        #expect(records.count == 10000)
        #expect(records[6].objectValue?["note"] == "a, \"b\"\nc")
        // Cut short (a quoted field that never closes): the manager fails, naming where.
        let broken = try await server.manager("m", in: server.pipeline(manager("", bad: true)), streamsBodies: true).load()
        #expect(throws: SourceError.self) { try broken.allRecords() }
        do { _ = try broken.allRecords() } catch {
            // 10,001 rows, and every seventh note spans two lines.
            #expect("\(error)".contains("has a quoted field that never ends (it opens on line 11430)"), "\(error)")
        }
        // A caller that did not ask for streaming gets the records held, as before.
        let held = try await server.manager("m", in: server.pipeline(manager(""))).load()
        #expect(held.recordFile == nil && held.records.count == 10000)
        // Paged, it is held: past the limit, refused.
        let paged = try server.manager(
            "m", in: server.pipeline(manager(", paging: { policy: page, param: page, start: 1 }")),
            transport: LiveTransport(maxBodyBytes: 16 << 10), streamsBodies: true)
        await #expect(throws: ManagerError.self) { try await paged.load() }
    }

    /// Runs a pipeline of the one manager `m` (`fields`, after its service) live against the test
    /// server with a 16 KiB body limit and `mode` (`--live`, `--record`), checking it succeeded.
    static func runDownload(_ fields: String, mode: String, in folder: TemporaryFolder) async throws -> (String, ReformBinary.Outcome) {
        let server = try TestServer()
        let pipeline = try folder.write(
            "download.yaml",
            service() + "\nmanagers:\n  m: { service: api, \(fields) }\nruns: { default: { output: { format: ndjson } } }\n")
        let run = try await ReformBinary.run(
            ["run", pipeline, mode, "--quiet", "--max-body-bytes", "16384"], environment: ["TEST_URL": server.url])
        #expect(run.status == 0, "\(run.stderr)")
        return (pipeline, run)
    }

    @Test func aRunStreamsADownloadPastTheBodyLimit() async throws {
        let (_, run) = try await ResultFileTests.runDownload(
            "path: /csv, format: csv, params: { per_page: 10000, total: 10000 }", mode: "--live", in: TemporaryFolder())
        #expect(run.stdout.split(separator: "\n").count == 10000)
    }

    @Test func anXMLDownloadIsRecordedBesideItsExchangeAndReplayed() async throws {
        let folder = try TemporaryFolder()
        let (pipeline, recorded) = try await ResultFileTests.runDownload(
            "path: /xml/rss, format: xml, records: rss.channel.item, params: { per_page: 3000, total: 3000 }, fixtures: fixtures/feed",
            mode: "--record", in: folder)
        #expect(recorded.stdout.split(separator: "\n").count == 3000)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/fixtures/feed/001.body.xml.gz"))
        let replayed = try await ReformBinary.run(["run", pipeline, "--quiet"], environment: ["TEST_URL": "http://127.0.0.1:9"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout == recorded.stdout)
    }

    /// A result file's URL that redirects to storage (another origin) is still streamed, and the
    /// service's credentials do not follow the redirect.
    @Test(arguments: [LiveTransport.Client.builtIn, .asyncHTTPClient])
    func aResultFileBehindARedirectIsStreamed(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            ResultFileTests.pipeline(#"{ rows: 6000, parts: 2, polls: 0, files: redirect, format: csv }"#),
            environment: ["TOKEN": "job-token"])
        let manager = try server.manager(
            "export", in: pipeline, environment: ["TOKEN": "job-token"], transport: LiveTransport(maxBodyBytes: 16 << 10, client: client),
            streamsBodies: true)
        let first = try await manager.load()
        #expect(first.recordFile != nil)
        let (records, _, _) = try await manager.loadAll()
        #expect(records.count == 6000)
    }

    @Test func aBadRowIsDeadLetteredAndTheRestLands() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let pipeline = try ResultFileTests.write(#"{ rows: 50, parts: 2, polls: 0, format: csv, damage: badrow }"#, to: folder)
        let run = try await ReformBinary.run(
            ["run", pipeline, "--live", "--quiet", "--dead-letter", folder.path + "/dead.ndjson"],
            environment: ["TEST_URL": server.url, "TOKEN": "job-token"])
        #expect(run.stdout.split(separator: "\n").count == 50, "\(run.stderr)")
        let dead = try folder.read("dead.ndjson")
        #expect(dead.contains("invalid-csv"), "\(dead)")
        #expect(dead.contains("the row has 2 fields in data row 26, but its header row names 4 (id, name, price, note)"), "\(dead)")
        // Named by the file's path and line, never its query (a pre-signed URL's signature).
        #expect(dead.contains("GET /jobs/job-1/files/0:"), "\(dead)")
    }

    @Test func aTruncatedResultFileLandsNothingOfItself() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            ResultFileTests.pipeline(#"{ rows: 3000, parts: 2, polls: 0, format: csv, damage: truncate }"#),
            environment: ["TOKEN": "job-token"])
        let manager = try server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"], streamsBodies: true)
        let first = try await manager.load()
        #expect(first.recordFile != nil)
        #expect(try first.allRecords().count == 1500)
        do {
            _ = try await manager.loadNextPage()
            Issue.record("a truncated file landed")
        } catch {
            #expect(error.kind == .invalidBody)
            #expect("\(error)".contains("the compressed data ends early"), "\(error)")
            #expect("\(error)".contains("nothing of it was landed"), "\(error)")
        }
    }

    /// An empty result file labelled gzip (a part with nothing in it) lands nothing, as an empty
    /// body held in memory does, rather than failing as gzip cut short.
    @Test func anEmptyResultFileLandsNothing() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            ResultFileTests.pipeline(#"{ rows: 10, parts: 1, polls: 0, format: csv, damage: empty }"#), environment: ["TOKEN": "job-token"])
        for streams in [true, false] {
            let manager = try server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"], streamsBodies: streams)
            #expect(try await manager.loadAll().records.isEmpty)
        }
    }

    @Test func theRecordBudgetCountsEveryFilesRecords() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            ResultFileTests.pipeline(#"{ rows: 500, parts: 2, polls: 0, format: csv }"#, manager: "    budget: { max_records: 300 }\n"),
            environment: ["TOKEN": "job-token"])
        let manager = try server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"], streamsBodies: true)
        #expect(try await manager.load().allRecords().count == 250)
        do {
            _ = try await manager.loadNextPage()?.allRecords()
            Issue.record("the budget was passed")
        } catch {
            #expect("\(error)".contains("301 records go past its budget of 300 (budget.max_records)"), "\(error)")
        }
    }

    @Test func aRecordedExportReplaysOfflineFromItsBodyFiles() async throws {
        let folder = try TemporaryFolder()
        let (pipeline, recorded) = try await ResultFileTests.record(
            #"{ rows: 10000, parts: 2, polls: 1, files: other, format: csv }"#, in: folder, options: ["--max-body-bytes", "16384"])
        #expect(recorded.stdout.split(separator: "\n").count == 10000)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/fixtures/export").sorted()
        #expect(names.filter { $0.hasSuffix(".body.csv.gz") } == ["004.body.csv.gz", "005.body.csv.gz"], "\(names)")
        #expect(try folder.read("fixtures/export/004.json").contains(#""body_file": "004.body.csv.gz""#))
        let replayed = try await ReformBinary.run(
            ["run", pipeline, "--quiet"], environment: ["TEST_URL": "http://127.0.0.1:9", "TOKEN": "job-token"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout == recorded.stdout)
    }

    @Test func aRecordedResultFileKeepsNoSecret() async throws {
        let folder = try TemporaryFolder()
        let (_, recorded) = try await ResultFileTests.record(#"{ rows: 5000, parts: 1, polls: 0, format: csv, damage: echo }"#, in: folder)
        #expect(recorded.stdout.contains("sent with Bearer job-token"), "the run itself lands what came")
        let body = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/fixtures/export/003.body.csv.gz"))
        let inflated = try ContentDecodingFuzzing.decode(Array(body), encoding: "", limit: 1 << 24).get()
        let text = String(decoding: try #require(inflated), as: UTF8.self)
        #expect(text.contains("sent with Bearer ***"))
        #expect(!text.contains("job-token"))
    }

    /// A line longer than the block the recorder redacts at once is cut where no secret can be:
    /// the token the file echoes across byte 1,048,576 is still hidden.
    @Test func aSecretAcrossTheRecordersBlockIsStillRedacted() async throws {
        let folder = try TemporaryFolder()
        let yaml = ExportJobTests.pipeline(#"{ rows: 1, parts: 1, polls: 0, damage: longline }"#)
            .replacing("    format: ndjson\n", with: "    format: ndjson\n    fixtures: fixtures/export\n")
        let pipeline = try folder.write("export.yaml", yaml + "runs: { default: { output: { format: ndjson } } }\n")
        let server = try TestServer()
        let recorded = try await ReformBinary.run(
            ["run", pipeline, "--record", "--quiet"], environment: ["TEST_URL": server.url, "TOKEN": "job-token"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let body = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/fixtures/export/003.body.ndjson.gz"))
        let inflated = try ContentDecodingFuzzing.decode(Array(body), encoding: "", limit: 1 << 24).get()
        let text = String(decoding: try #require(inflated), as: UTF8.self)
        // As booleans: a failure should not print the megabyte.
        let redacted = text.contains("Bearer ***")
        let leaked = text.contains("job-token") || text.contains("job-")
        #expect(redacted && !leaked, "no part of the token is left")
    }

    @Test func aWatchedRunShowsTheStartOfEachResultFile() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let path = try ResultFileTests.write(#"{ rows: 600, parts: 2, polls: 0, format: csv }"#, to: folder)
        let pipeline = try PipelineLoader(environment: ["TEST_URL": server.url, "TOKEN": "job-token"]).load(path: path)
        var options = RunOptions()
        options.mode = .live
        options.environment = ["TEST_URL": server.url, "TOKEN": "job-token"]
        options.outputPath = folder.path + "/out.ndjson"
        let watch = RunWatch()
        options.watch = watch
        _ = try await Runner(pipeline: pipeline, options: options).run()
        let seen = watch.snapshot()
        #expect(seen.pages.map(\.recordsStreamed) == [true, true])
        #expect(seen.pages.first?.body.hasPrefix("(result file, ") == true, "\(seen.pages.first?.body ?? "")")
        #expect(seen.pages.first?.body.contains("id,name,price,note\r\n1,item 1,1.25,") == true)
        #expect(seen.pages.first?.json.objectValue?["records_streamed"] == true)
        #expect(seen.managers.first?.records == 600)
    }

    /// One generated case of a body read held and read streamed: the same records, or both
    /// refusing it; counted in `outcomes`.
    static func compare(
        _ whole: Result<[Value], any Error>, _ streamed: Result<[Value], any Error>, _ what: String,
        into outcomes: inout (records: Int, refused: Int)
    ) {
        switch (whole, streamed) {
        case (.success(let a), .success(let b)):
            outcomes.records += 1
            #expect(a == b, "\(what)")
        case (.failure, .failure):
            outcomes.refused += 1
        default:
            Issue.record("\(what): whole \(whole), streamed \(streamed)")
        }
    }

    /// NDJSON texts (objects, arrays, strings with escapes, numbers, blank and white-space lines,
    /// CRLF, a last line without a break, now and then a line that is not JSON) read whole as a
    /// page's body and read from a file in chunks of 1 to 7 bytes: the same records, or both
    /// refusing the bad line.
    @Test func ndjsonReadInChunksGivesWhatTheWholeTextGives() throws {
        var generator = SeededGenerator(seed: 4042)
        let folder = try TemporaryFolder()
        var outcomes = (records: 0, refused: 0)
        let lines = [
            #"{"id": 1, "name": "a \"b\" \\ c"}"#, "[1, 2, {\"x\": null}]", #""text\n\u00e9""#, "-12.5e3", "true", "", "   ", "\t",
            #"{"nested": {"deep": [[], {}]}}"#, #"{"s": "}{]["}"#,
        ]
        for round in 0..<300 {
            var text = ""
            for _ in 0..<Int(generator.next() % 8) {
                text += lines[Int(generator.next() % UInt64(lines.count))]
                if generator.next() % 25 == 0 { text += "{oops" }
                text += generator.next() % 3 == 0 ? "\r\n" : "\n"
            }
            if generator.next() % 4 == 0, !text.isEmpty { text.removeLast() }
            let path = try folder.write("n\(round).ndjson", text)
            let whole = Result { try ResponseRows.records(text, format: .ndjson) }
            let chunk = 1 + Int(generator.next() % 7)
            let streamed = Result { () throws -> [Value] in
                let reader = try RecordFile(path: path, format: .ndjson, chunkSize: chunk).reader()
                var records: [Value] = []
                while let record = try reader.next() { records.append(try record.get()) }
                return records
            }
            ResultFileTests.compare(whole, streamed, "round \(round), chunks of \(chunk): \(text.debugDescription)", into: &outcomes)
        }
        #expect(outcomes.records > 150 && outcomes.refused > 20, "\(outcomes)")
    }

    /// CSV texts made of the awkward parts (quotes, doubled quotes, delimiters and line breaks in
    /// quotes, CRLF, a byte-order mark, empty lines, a last line without a break), read whole and
    /// read from a file in chunks of 1 to 7 bytes: the same records, or the same damage.
    @Test func csvReadInChunksGivesWhatTheWholeTextGives() throws {
        var generator = SeededGenerator(seed: 40)
        let folder = try TemporaryFolder()
        var outcomes = (records: 0, refused: 0)
        let pieces = ["a", "b c", "\"q\"", "\"x,y\"", "\"1\"\"2\"", "\"l1\nl2\"", "", "3", "é", "\"\"", "\"r\r\n\""]
        for round in 0..<300 {
            let columns = 1 + Int(generator.next() % 3)
            var text = generator.next() % 5 == 0 ? "\u{FEFF}" : ""
            let rows = Int(generator.next() % 6)
            for row in 0...rows {
                let cells = (0..<columns).map { column in row == 0 ? "c\(column)" : pieces[Int(generator.next() % UInt64(pieces.count))] }
                text += cells.joined(separator: ",")
                if generator.next() % 7 == 0 && row > 0 { text += ",extra" }
                text += ["\n", "\r\n", "\n\n"][Int(generator.next() % 3)]
            }
            if generator.next() % 4 == 0 { text.removeLast() }
            if generator.next() % 9 == 0 { text += "\"open" }
            let path = try folder.write("t\(round).csv", text)
            let whole = Result { try ResponseRows.records(text, format: .csv) }
            let chunk = 1 + Int(generator.next() % 7)
            let streamed = Result { () throws -> [Value] in
                let reader = try RecordFile(path: path, format: .csv, chunkSize: chunk).reader()
                var records: [Value] = []
                while let record = try reader.next() {
                    switch record {
                    case .success(let value): records.append(value)
                    // A row the whole text refuses, the file dead-letters: the same row, the same words.
                    case .failure(let error): throw RowRefused(description: error.message.replacing("the row ", with: ""))
                    }
                }
                return records
            }
            switch (whole, streamed) {
            case (.success(let a), .success(let b)):
                outcomes.records += 1
                #expect(a == b, "round \(round), chunks of \(chunk): \(text.debugDescription)")
            case (.failure(let a), .failure(let b)):
                outcomes.refused += 1
                #expect("\(b)".hasSuffix("\(a)"), "round \(round): \(a) vs \(b)")
            default:
                Issue.record("round \(round), chunks of \(chunk): \(whole) vs \(streamed) for \(text.debugDescription)")
            }
        }
        // The inputs reach both outcomes, often.
        #expect(outcomes.records > 100 && outcomes.refused > 50, "\(outcomes)")
    }
}

extension ResultFileTests {
    /// JSON documents holding their records under a path of keys (`data.items`), with other
    /// members before and after (strings with braces, quotes and escapes, nested values, numbers
    /// that end at a brace), read from a file in chunks of 1 to 9 bytes: the records `records:`
    /// finds in the document parsed whole — the array's elements, one value, or none for null.
    @Test func jsonUnderAPathReadInChunksGivesWhatTheWholeDocumentGives() throws {
        var generator = SeededGenerator(seed: 4041)
        let folder = try TemporaryFolder()
        var outcomes = (records: 0, refused: 0)
        let noise: [String] = [
            #""a {b} [c]""#, #""q \"x\" \\""#, "12", "-3.5e2", "true", "null", #"{"k": [1, {"z": "}"}]}"#, "[]", "{}", #""é\u00e9""#,
        ]
        let records: [String] = [#"{"id": 1}"#, #"{"id": 2, "tags": ["a", "b"]}"#, "3", #""four""#, "[5, 6]", #"{"s": "]}{["}"#]
        for round in 0..<300 {
            let depth = 1 + Int(generator.next() % 3)
            let keys = (0..<depth).map { "k\($0)" }
            func members() -> String {
                (0..<Int(generator.next() % 3)).map { index in "\"x\(index)\": " + noise[Int(generator.next() % UInt64(noise.count))] }
                    .joined(separator: ", ")
            }
            var value: String
            switch generator.next() % 6 {
            case 0: value = "null"
            case 1: value = records[Int(generator.next() % UInt64(records.count))]
            default:
                value =
                    "["
                    + (0..<Int(generator.next() % 5)).map { _ in records[Int(generator.next() % UInt64(records.count))] }
                    .joined(separator: ", ") + "]"
            }
            // Wrap the value in its keys, the other members around each level, from the inside out.
            for key in keys.reversed() {
                let before = members()
                let after = members()
                let inner = [before, "\"\(key)\": \(value)", after].filter { !$0.isEmpty }.joined(separator: ",\n ")
                value = "{" + inner + "}"
            }
            var text = value
            let broken = generator.next() % 10 == 0
            if broken { text.removeLast(1 + Int(generator.next() % 3)) }
            let path = try folder.write("d\(round).json", text)
            let recordsPath = try ValuePath(parsing: keys.joined(separator: "."))
            let whole = Result { () throws -> [Value] in
                let body = try JSON.parse(Array(text.utf8))
                guard let found = body[path: recordsPath] else { throw RowRefused(description: "no records") }
                return found.arrayValue ?? (found.isNull ? [] : [found])
            }
            let chunk = 1 + Int(generator.next() % 9)
            let streamed = Result { () throws -> [Value] in
                let reader = try RecordFile(path: path, format: .json, records: recordsPath, chunkSize: chunk).reader()
                var found: [Value] = []
                while let record = try reader.next() { found.append(try record.get()) }
                return found
            }
            ResultFileTests.compare(whole, streamed, "round \(round), chunks of \(chunk): \(text)", into: &outcomes)
        }
        #expect(outcomes.records > 200 && outcomes.refused > 15, "\(outcomes)")
    }
}

/// A row the streamed reader dead-lettered, in the words the whole text's error uses.
private struct RowRefused: Error, CustomStringConvertible {
    let description: String
}
