import Foundation
import ReformEngine
import ReformEngineTesting
import ReformSDK
import ReformTestSupport
import Testing

/// ``RunWatch``: what a watched run shows of its pages, records, steps and events, within its
/// limits, for a replayed pipeline and live ones against the test server; and that watching
/// changes nothing of what the run writes.
@Suite(.timeLimit(.minutes(10))) struct RunWatchTests {
    static let propertyList = ProjectRoot.path + "/Pipelines/property-list.yaml"

    /// A new watch, and options for a live run against `server` it watches (on `clock`).
    static func watchedLive(on server: TestServer, clock: (any RunClock)? = nil) -> (RunWatch, RunOptions) {
        let watch = RunWatch()
        var options = RunOptions()
        options.mode = .live
        options.environment = ["TEST_URL": server.url]
        if let clock { options.clock = clock }
        options.watch = watch
        return (watch, options)
    }

    /// Runs the property-list pipeline's default run from its fixtures, writing standard output
    /// to `output`; watched by `watch` when given.
    func replayPropertyList(into output: String, watch: RunWatch?) async throws -> RunSummary {
        let pipeline = try PipelineLoader(environment: [:]).load(path: Self.propertyList)
        var options = RunOptions()
        options.outputPath = output
        options.watch = watch
        return try await Runner(pipeline: pipeline, options: options).run()
    }

    @Test func aReplayedRunShowsEveryPageTheRecordsOfEachStepAndTheCounts() async throws {
        let folder = try TemporaryFolder()
        var limits = RunWatch.Limits()
        limits.recordsPerStep = 2
        let watch = RunWatch(limits: limits)
        let summary = try await replayPropertyList(into: folder.path + "/watched.txt", watch: watch)
        let seen = watch.snapshot()

        // Every page, in landing order, with what paging decided after it.
        #expect(seen.pagesSeen == 8)
        #expect(
            seen.pages.map { "\($0.manager) \($0.page) \($0.records)" } == [
                "zufang 1 3", "zufang 2 3", "zufang 3 1", "xinfang 1 3", "xinfang 2 1", "ershoufang 1 3", "ershoufang 2 3",
                "ershoufang 3 0",
            ])
        let first = try #require(seen.pages.first)
        #expect(first.method == "GET")
        #expect(first.url == "/zufang/list?city=shanghai&page_size=3&page=1")
        #expect(first.replayed && first.seconds == nil)
        #expect(first.status == 200)
        #expect(first.next == "/zufang/list?city=shanghai&page_size=3&page=2")
        #expect(first.stopReason == nil)
        #expect(first.body.contains("\"静安寺精装一居室\""), "the body, pretty-printed: \(first.body)")
        #expect(!first.bodyCut && first.bodyBytes == 431)
        #expect(seen.pages[2].next == nil && seen.pages[2].stopReason?.hasPrefix("short page") == true)

        // What each manager landed, and the first records of it, with where each came from.
        #expect(seen.managers.map { "\($0.name) \($0.records)" } == ["zufang 7", "xinfang 4", "ershoufang 6"])
        #expect(seen.managers.allSatisfy { $0.samples.count == 2 })
        let landed = seen.managers[0].samples[1]
        #expect(landed.manager == "zufang" && landed.sequence == 2 && landed.page == 1)
        #expect(landed.value.objectValue?["id"] == .int(104))

        // The one output's chain: each reformer's counts, and its first records.
        let output = try #require(seen.outputs.first)
        #expect(seen.outputs.count == 1)
        #expect(output.stages.map(\.name) == ["property-list"])
        let stage = output.stages[0]
        #expect(stage.recordsIn == 17 && stage.recordsOut == 17 && stage.rejected == 0)
        #expect(summary.recordsIn == 17)
        #expect(stage.samples.count == 2)
        #expect(stage.samples[0].manager == "zufang" && stage.samples[0].sequence == 1 && stage.samples[0].page == 1)
        #expect(stage.samples[0].value.objectValue?.members.first?.key == "kPropertyListDataKeyID")

        // The snapshot as the studio's page reads it.
        let json = seen.json.objectValue
        #expect(json?["pages_seen"] == .int(8))
        #expect(json?["pages"]?.arrayValue?.first?.objectValue?["url"] == .string("/zufang/list?city=shanghai&page_size=3&page=1"))
        #expect(json?["outputs"]?.arrayValue?.first?.objectValue?["stages"]?.arrayValue?.first?.objectValue?["out"] == .int(17))
    }

    @Test func watchingChangesNothingTheRunWrites() async throws {
        let folder = try TemporaryFolder()
        _ = try await replayPropertyList(into: folder.path + "/plain.txt", watch: nil)
        _ = try await replayPropertyList(into: folder.path + "/watched.txt", watch: RunWatch())
        let plain = try String(contentsOfFile: folder.path + "/plain.txt", encoding: .utf8)
        let watched = try String(contentsOfFile: folder.path + "/watched.txt", encoding: .utf8)
        #expect(!plain.isEmpty)
        #expect(watched == plain)
    }

    @Test func theLastPagesAndTheFirstRecordsAreKeptWithinTheLimits() async throws {
        let folder = try TemporaryFolder()
        var limits = RunWatch.Limits()
        limits.pages = 3
        limits.recordsPerStep = 1
        limits.bodyBytes = 40
        let watch = RunWatch(limits: limits)
        _ = try await replayPropertyList(into: folder.path + "/out.txt", watch: watch)
        let seen = watch.snapshot()
        #expect(seen.pagesSeen == 8)
        #expect(seen.pages.map { "\($0.manager) \($0.page)" } == ["ershoufang 1", "ershoufang 2", "ershoufang 3"])
        #expect(seen.pages.allSatisfy { $0.body.utf8.count <= 40 })
        #expect(seen.pages[0].bodyCut && seen.pages[0].bodyBytes > 40)
        #expect(seen.managers.allSatisfy { $0.samples.count == 1 })
        #expect(seen.outputs[0].stages[0].samples.count == 1)
    }

    /// Runs manager `items` of a pipeline whose `reformers:` section is `reformers` (one reformer
    /// `chain`) over `lines` as its input file, watched; the summary, the watch and the output.
    func runOverFile(reformers: String, lines: String) async throws -> (RunSummary, RunWatch, String) {
        let folder = try TemporaryFolder()
        try lines.write(toFile: folder.path + "/items.ndjson", atomically: true, encoding: .utf8)
        let yaml = """
            reform: 1
            managers:
              items: {}
            reformers:
            \(reformers.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            runs:
              default: { managers: [items], reform: [chain], output: { format: ndjson } }
            """
        let pipeline = try PipelineLoader(environment: [:]).load(bytes: Array(yaml.utf8), file: "p.yaml", folder: folder.path)
        let watch = RunWatch()
        var options = RunOptions()
        options.inputs = [("items", folder.path + "/items.ndjson")]
        options.outputPath = folder.path + "/out.ndjson"
        options.deadLetterPath = folder.path + "/dead.ndjson"
        options.watch = watch
        let summary = try await Runner(pipeline: pipeline, options: options).run()
        return (summary, watch, try String(contentsOfFile: folder.path + "/out.ndjson", encoding: .utf8))
    }

    @Test func aRecordAStepRejectsIsShownWithTheReasonAndItsOrigin() async throws {
        let (summary, watch, _) = try await runOverFile(
            reformers: """
                chain:
                  steps:
                    - convert: { price: double }
                """,
            lines: """
                {"id": 1, "price": "12.5"}
                {"id": 2, "price": "cheap"}
                {"id": 3, "price": "7"}
                """)
        #expect(summary.rejected == 1)
        let stage = try #require(watch.snapshot().outputs.first?.stages.first)
        #expect(stage.recordsIn == 3 && stage.recordsOut == 2 && stage.rejected == 1)
        let rejection = try #require(stage.rejections.first)
        #expect(rejection.record.sequence == 2 && rejection.record.line == 2)
        #expect(rejection.record.value.objectValue?["price"] == .string("cheap"))
        #expect(rejection.message.contains("cheap"), "\(rejection.message)")
        #expect(stage.samples.map { $0.value.objectValue?["price"] } == [.double(12.5), .double(7)])
    }

    @Test func aRecordFromAFileIsShownWholeAsItLandedNotAsMuchAsTheChainReads() async throws {
        let (_, watch, output) = try await runOverFile(
            reformers: """
                chain:
                  keys: { name: kName }
                  from: { items: { name: name } }
                """,
            lines: #"{"id": 1, "name": "anvil", "notes": {"long": "text the mapping never reads"}}"#)
        let landed = try #require(watch.snapshot().managers.first?.samples.first)
        #expect(landed.value.objectValue?.members.map(\.key) == ["id", "name", "notes"])
        #expect(landed.line == 1)
        #expect(watch.snapshot().outputs.first?.stages.first?.samples.first?.value == .object(["kName": .string("anvil")]))
        #expect(output == #"{"kName":"anvil"}"# + "\n")
    }

    @Test func eachStepOfAStepsReformerIsWatchedWithItsLineItsRecordsAndItsRejections() async throws {
        let (summary, watch, output) = try await runOverFile(
            reformers: """
                chain:
                  steps:
                    - convert: { price: double }
                    - filter: "price > 5"
                    - sort: price
                    - limit: 2
                """,
            lines: """
                {"id": 1, "price": "12.5"}
                {"id": 2, "price": "cheap"}
                {"id": 3, "price": "7"}
                {"id": 4, "price": "1"}
                {"id": 5, "price": "9"}
                """)
        #expect(summary.rejected == 1)
        #expect(output.split(separator: "\n").count == 2)
        let reformer = try #require(watch.snapshot().outputs.first?.stages.first)
        #expect(reformer.name == "chain" && reformer.recordsIn == 5 && reformer.recordsOut == 2 && reformer.rejected == 1)
        let steps = reformer.steps
        #expect(steps.map(\.name) == ["convert", "filter", "sort", "limit"])
        #expect(steps.map(\.line) == [7, 8, 9, 10], "each step's line in the pipeline file")
        #expect(steps.map { "\($0.recordsIn) \($0.recordsOut) \($0.rejected)" } == ["5 4 1", "4 3 0", "3 3 0", "3 2 0"])
        let rejection = try #require(steps[0].rejections.first)
        #expect(
            rejection.record.sequence == 2 && rejection.message == "cannot convert 'price' (string \"cheap\") to double"
                && rejection.code == "conversion", "\(rejection.code): \(rejection.message)")
        // The sort made its records when it released them, in order; the limit took them in turn.
        #expect(steps[2].samples.map { $0.value.objectValue?["price"] } == [.double(7), .double(9), .double(12.5)])
        #expect(steps[3].samples.map { $0.value.objectValue?["id"] } == [.int(3), .int(5)])
    }

    /// Each manager's first landed records are traced: every step keeps what it made of them (or
    /// its rejection) beyond its first records, so that each one's path through the chain is
    /// whole; a record a filter drops is in no later step.
    @Test func eachManagersFirstRecordsAreTracedThroughEveryStep() async throws {
        let folder = try TemporaryFolder()
        try folder.write("a.ndjson", (10...14).map { #"{"id": "a\#($0)", "price": \#($0)}"# + "\n" }.joined())
        try folder.write(
            "b.ndjson",
            [#"{"id": "b1", "price": "x"}"#, #"{"id": "b2", "price": 1}"#, #"{"id": "b3", "price": 20}"#, #"{"id": "b4", "price": 21}"#]
                .map { $0 + "\n" }.joined())
        let yaml = """
            reform: 1
            managers: { a: {}, b: {} }
            reformers:
              chain:
                steps:
                  - convert: { price: double }
                  - filter: "price > 5"
            runs:
              default: { managers: [a, b], reform: [chain], output: { format: ndjson } }
            """
        let pipeline = try PipelineLoader(environment: [:]).load(bytes: Array(yaml.utf8), file: "p.yaml", folder: folder.path)
        var limits = RunWatch.Limits()
        limits.recordsPerStep = 3
        limits.rejectionsPerStep = 0
        let watch = RunWatch(limits: limits)
        var options = RunOptions()
        options.inputs = [("a", folder.path + "/a.ndjson"), ("b", folder.path + "/b.ndjson")]
        options.outputPath = folder.path + "/out.ndjson"
        options.deadLetterPath = folder.path + "/dead.ndjson"
        options.watch = watch
        _ = try await Runner(pipeline: pipeline, options: options).run()
        let steps = try #require(watch.snapshot().outputs.first?.stages.first?.steps)
        func ids(_ records: [WatchedRecord]) -> [String] { records.map { $0.value.objectValue?["id"]?.stringValue ?? "?" } }
        #expect(ids(steps[0].samples) == ["a10", "a11", "a12"])
        #expect(ids(steps[0].traced) == ["b2", "b3"], "b's first three, but b1, rejected; a13 and b4 are not traced")
        #expect(steps[0].rejections.isEmpty && ids(steps[0].tracedRejections.map(\.record)) == ["b1"])
        #expect(ids(steps[1].traced) == ["b3"], "the filter made nothing of b2")
        let json = try #require(steps[0].json.objectValue)
        #expect(json["traced"]?.arrayValue?.count == 2 && json["traced_rejections"]?.arrayValue?.count == 1)
    }

    /// An output with a row shape shows the first rows it wrote, in the order written (after the
    /// shape's sort), each with the origin of the record that filled it.
    @Test func eachRowWrittenSaysWhichRecordFilledIt() async throws {
        let pipeline = try PipelineLoader(environment: [:]).load(path: Self.propertyList)
        let folder = try TemporaryFolder()
        let watch = RunWatch()
        var options = RunOptions()
        options.runName = "rows"
        options.outputPath = folder.path + "/rows.txt"
        options.watch = watch
        _ = try await Runner(pipeline: pipeline, options: options).run()
        let snapshot = watch.snapshot()
        let output = try #require(snapshot.outputs.first)
        #expect(output.rowShape?.name == "listing-row" && output.rowShape?.columns == ["id", "name", "title"])
        #expect(output.rowsWritten == 17 && output.rows.count == 17)
        let ids = output.rows.map { $0.value.arrayValue?.first.flatMap { JSON.compactString($0) } ?? "" }
        #expect(ids == ids.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }, "in the order written: sorted by id")
        // Each row's origin is the landed record whose id it shows.
        let idField = ["zufang": "id", "xinfang": "xinfang_id", "ershoufang": "esf_id"]
        for row in output.rows {
            let landed = snapshot.managers.first { $0.name == row.manager }?.samples.first { $0.sequence == row.sequence }
            let field = idField[row.manager] ?? "?"
            #expect(
                landed?.value.objectValue?[field].map(JSON.compactString) == row.value.arrayValue?.first.map(JSON.compactString),
                "\(row.manager) #\(row.sequence)")
        }
        let json = try #require(output.json.objectValue?["rows"]?.objectValue)
        #expect(json["written"] == 17 && json["first"]?.arrayValue?.count == 17)
    }

    /// A sorted shape's rows keep their record's origin through the sort's temporary file.
    @Test func aRowsOriginSurvivesTheSortsTemporaryFile() async throws {
        let pipeline = try PipelineLoader(environment: [:]).load(path: Self.propertyList)
        let folder = try TemporaryFolder()
        // 30,000 rows (about 3 MB), ids falling as the records come: past the 1 MiB sort budget.
        let count = 30_000
        let text = String(repeating: "t", count: 60)
        try (1...count).map { #"{"id": \#(count - $0 + 1), "name": "n\#($0)", "title": "\#(text)", "imageUrl": "u"}"# + "\n" }.joined()
            .write(toFile: folder.path + "/zufang.ndjson", atomically: true, encoding: .utf8)
        let watch = RunWatch()
        var options = RunOptions()
        options.runName = "rows"
        options.inputs = [("zufang", folder.path + "/zufang.ndjson")]
        options.outputPath = folder.path + "/rows.txt"
        options.sortMemory = 1
        options.watch = watch
        _ = try await Runner(pipeline: pipeline, options: options).run()
        let output = try #require(watch.snapshot().outputs.first)
        #expect(output.rowsWritten == count && output.rows.count == 20)
        for row in output.rows {
            let id = row.value.arrayValue?.first.flatMap { Int(JSON.compactString($0)) } ?? 0
            #expect(row.manager == "zufang" && row.sequence == count - id + 1 && row.line == row.sequence, "row \(id): #\(row.sequence)")
        }
    }

    /// A watched live page shows the request and response as `--record` would keep them: the
    /// service's secrets (in a header, the auth, the query and the body the API echoes back)
    /// are `***` wherever they appear.
    @Test func aLivePagesSecretsAreRedactedAsARecordingRedactsThem() async throws {
        let server = try TestServer()
        let secret = "s3cret-\(UUID().uuidString.prefix(8))"
        let pipeline = try server.pipeline(
            service("headers: { X-Trace: \"t-${SECRET}\" }\nauth: { bearer: \"${SECRET}\" }")
                + """

                managers:
                  echo:
                    service: api
                    method: POST
                    path: /echo
                    params: { note: "${SECRET}" }
                    body: json
                    records: headers
                runs:
                  default: { managers: [echo], output: { format: ndjson, path: /dev/null } }
                """, environment: ["SECRET": secret])
        let watch = RunWatch()
        var options = RunOptions()
        options.mode = .live
        options.environment = ["TEST_URL": server.url, "SECRET": secret]
        options.watch = watch
        _ = try await Runner(pipeline: pipeline, options: options).run()
        let page = try #require(watch.snapshot().pages.first)
        var bytes: [UInt8] = []
        JSON.write(page.json, into: &bytes)
        let shown = String(decoding: bytes, as: UTF8.self)
        #expect(!shown.contains(secret), "the page as the studio shows it: \(shown)")
        #expect(page.body.contains("***"), "the echoed credentials are there, redacted: \(page.body)")
        // The headers as they went out: the service's and the credentials, redacted.
        let sent = Dictionary(page.requestHeaders.map { ($0.name.lowercased(), $0.value) }) { a, _ in a }
        #expect(sent["x-trace"] == "t-***" && sent["authorization"] == "Bearer ***", "\(page.requestHeaders)")
    }

    /// The whole snapshot of the property-list replay, as the studio's page reads it, against a
    /// golden file: `RECORD_GOLDENS=1 swift test --filter RunWatchTests` re-records it after an
    /// intended change.
    @Test func theReplayedSnapshotMatchesItsGoldenTranscript() async throws {
        let folder = try TemporaryFolder()
        var limits = RunWatch.Limits()
        limits.recordsPerStep = 2
        let watch = RunWatch(limits: limits)
        _ = try await replayPropertyList(into: folder.path + "/out.txt", watch: watch)
        guard case .object(var transcript) = watch.snapshot().json else {
            Issue.record("the snapshot is not an object")
            return
        }
        transcript["changes"] = nil  // how often it changed is the engine's business, not the transcript's
        var bytes: [UInt8] = []
        JSON.writePretty(.object(transcript), into: &bytes)
        // The output's name is its path, in a new folder each time.
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: folder.path, with: "<folder>") + "\n"
        let golden = ProjectRoot.path + "/Tests/ReformEngineTests/Watching/Goldens/property-list.json"
        if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] != nil {
            try text.write(toFile: golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOfFile: golden, encoding: .utf8)
        let difference = zip(text.split(separator: "\n"), expected.split(separator: "\n")).first { $0 != $1 }
        #expect(
            text == expected,
            "differs from Goldens/property-list.json; first different line: \(difference.map { "\($0.0) / \($0.1)" } ?? "")")
    }

    /// The page that fails a manager (a status it gave up on after its retries) is watched too,
    /// with what came back and the error: what a person needs to see why the run failed.
    @Test func theFailingPageIsShownWithItsStatusBodyAndError() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service("retry: { attempts: 2, base: 1ms }")
                + """

                managers:
                  broken: { service: api, path: /status, params: { code: 500 }, records: items }
                runs:
                  default: { managers: [broken], output: { format: ndjson, path: /dev/null } }
                """)
        let (watch, options) = Self.watchedLive(on: server, clock: VirtualClock())
        await #expect(throws: RunError.self) { try await Runner(pipeline: pipeline, options: options).run() }
        let seen = watch.snapshot()
        let page = try #require(seen.pages.last)
        #expect(page.manager == "broken" && page.status == 500 && page.records == 0, "\(page.json(body: true))")
        #expect(page.body.contains("status 500"))
        #expect(page.error?.hasPrefix("http-status: ") == true && page.error?.contains("500") == true, "\(page.error ?? "")")
        #expect(page.json(body: false).objectValue?["error"] != nil)
    }

    /// A run cancelled while a page is in flight keeps what it watched until then.
    @Test func aCancelledRunKeepsWhatItWatched() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service()
                + """

                managers:
                  fast: { service: api, path: /paged/offset, params: { limit: 2, total: 4 }, records: items, paging: { policy: offset, param: offset, size_param: limit } }
                  slow: { service: api, path: /slow, params: { delay: 600 } }
                runs:
                  default: { managers: [fast, slow], output: { format: ndjson, path: /dev/null } }
                """)
        let (watch, options) = Self.watchedLive(on: server)
        let run = Task { try await Runner(pipeline: pipeline, options: options).run() }
        try await server.waitForRequest(path: "/slow")
        run.cancel()
        await #expect(throws: (any Error).self) { try await run.value }
        let seen = watch.snapshot()
        #expect(seen.pages.filter { $0.manager == "fast" }.map(\.records) == [2, 2, 0])
        #expect(seen.managers.first { $0.name == "fast" }?.records == 4)
        // The page in flight never landed. (On a loaded machine the request may time out before the
        // cancel comes: that failure is shown as a failed page, with its error.)
        let slow = seen.pages.filter { $0.manager == "slow" }
        #expect(slow.allSatisfy { $0.error != nil && $0.records == 0 }, "\(slow.map { $0.json(body: false) })")
        #expect(!slow.contains { $0.error?.hasPrefix("cancelled") == true }, "a cancelled request is no failed page")
    }

    /// An incremental run's second run asks from its bookmark: its watched pages show it.
    @Test func anIncrementalRunsNextRunAsksFromItsBookmark() async throws {
        let pipeline = try PipelineLoader(environment: [:]).load(path: ProjectRoot.path + "/Pipelines/github-incremental.yaml")
        let folder = try TemporaryFolder()
        var watches: [RunWatch] = []
        for _ in 0..<2 {
            let watch = RunWatch()
            var options = RunOptions()
            options.outputFolder = folder.path
            options.statePath = folder.path + "/state.json"
            options.watch = watch
            _ = try await Runner(pipeline: pipeline, options: options).run()
            watches.append(watch)
        }
        let first = watches[0].snapshot().pages.map(\.url)
        let second = watches[1].snapshot().pages.map(\.url)
        #expect(!first.isEmpty && first.allSatisfy { !$0.contains("since=") }, "\(first)")
        #expect(!second.isEmpty && second.allSatisfy { $0.contains("since=") }, "\(second)")
        #expect(watches[1].snapshot().pages.allSatisfy { $0.replayed })
    }

    @Test func aLiveFanOutShowsEachPartitionsPagesTimedAndARateLimitsWait() async throws {
        let server = try TestServer()
        let key = UUID().uuidString
        let pipeline = try server.pipeline(
            service("retry: { attempts: 3 }")
                + """

                managers:
                  items:
                    service: api
                    path: /paged/offset
                    params: { limit: 2, total: 3, shelf: { required: true } }
                    for_each: { param: shelf, values: [a, b] }
                    records: items
                    paging: { policy: offset, param: offset, size_param: limit }
                  limited:
                    service: api
                    path: /ratelimited
                    params: { key: "\(key)", fail: 1, retry_after: 1 }
                    records: items
                runs:
                  default: { managers: [items, limited], output: { format: ndjson, path: /dev/null } }
                """)
        let (watch, options) = Self.watchedLive(on: server, clock: VirtualClock())
        let summary = try await Runner(pipeline: pipeline, options: options).run()
        #expect(summary.recordsIn == 11)
        let seen = watch.snapshot()
        let items = seen.pages.filter { $0.manager == "items" }
        // Offset paging stops at the first empty page: three pages per partition.
        #expect(items.count == 6, "\(items.map(\.url))")
        let partitions = Dictionary(grouping: items) { $0.partition ?? "" }
        #expect(partitions.count == 2 && partitions.keys.allSatisfy { !$0.isEmpty })
        #expect(partitions.values.allSatisfy { $0.map(\.records) == [2, 1, 0] && $0.map(\.page) == [1, 2, 3] })
        #expect(items.allSatisfy { !$0.replayed && ($0.seconds ?? -1) >= 0 })
        #expect(items.allSatisfy { $0.url.hasPrefix(server.url + "/paged/offset?") }, "\(items.map(\.url))")
        let limited = try #require(seen.pages.first { $0.manager == "limited" })
        #expect(limited.status == 200 && limited.records == 5)
        #expect(seen.events.contains { $0.contains("limited") && $0.contains("429") }, "\(seen.events)")
    }
}
