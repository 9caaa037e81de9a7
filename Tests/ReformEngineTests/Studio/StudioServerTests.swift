import Foundation
import ReformEngine
import ReformSDK
import ReformStudio
import ReformSystem
import ReformTestSupport
import ReformYAML
import Testing

/// `reform studio`'s server, in process, through its HTTP API: who may ask, what the page is
/// allowed to load, diagnostics as `reform validate` gives them, saving, and runs started,
/// watched and cancelled from the page.
@Suite(.timeLimit(.minutes(10))) struct StudioServerTests {
    /// A copy of the shipped pipeline `name` and the fixtures in a folder of its own, and a studio
    /// on it, its runs writing under the folder's `.scratch`.
    func studio(on name: String = "property-list.yaml") async throws -> (StudioUnderTest, TemporaryFolder, scratch: String) {
        let folder = try TemporaryFolder()
        let pipelines = ProjectRoot.path + "/Pipelines"
        try FileManager.default.copyItem(atPath: pipelines + "/" + name, toPath: folder.path + "/" + name)
        try FileManager.default.copyItem(atPath: pipelines + "/fixtures", toPath: folder.path + "/fixtures")
        let scratch = folder.path + "/.scratch"
        let studio = try await StudioUnderTest(pipeline: folder.path + "/" + name, scratch: scratch)
        return (studio, folder, scratch)
    }

    @Test func withoutItsTokenOrFromAnotherHostNothingIsAnswered() async throws {
        let (studio, _, _) = try await studio()
        let port = studio.port
        for (what, answer) in [
            ("no token", try await studio.send("GET", "/", token: .some(nil))),
            ("no token, API", try await studio.send("GET", "/api/pipeline", token: .some(nil))),
            ("a wrong token", try await studio.send("GET", "/api/pipeline", token: "g" + studio.server.token.dropFirst())),
            ("a rebinding Host", try await studio.send("GET", "/api/pipeline", host: "evil.example:\(port)")),
            ("a Host of another port", try await studio.send("GET", "/api/pipeline", host: "127.0.0.1:\(port + 1)")),
            ("a Host without a port", try await studio.send("GET", "/api/pipeline", host: "localhost")),
        ] {
            #expect(answer.status == 403, "\(what): \(answer.status) \(answer.body)")
            #expect(!answer.body.contains("property-list"), "\(what): nothing of the pipeline is told")
        }
        #expect(try await studio.send("GET", "/api/pipeline", token: .some(nil)).body.contains("token is missing or wrong"))
        #expect(try await studio.send("GET", "/api/pipeline", host: "evil.example:\(port)").body.contains("only on loopback"))
        // The token as the printed URL gives it, and the names loopback goes by.
        #expect(try await studio.send("GET", "/?token=\(studio.server.token)", token: .some(nil)).status == 200)
        #expect(try await studio.send("GET", "/api/pipeline", host: "localhost:\(port)").status == 200)
        #expect(studio.server.url(port: port) == "http://127.0.0.1:\(port)/?token=\(studio.server.token)")
        #expect(studio.server.token.count == 64 && studio.server.token.allSatisfy(\.isHexDigit))
    }

    @Test func aPortInUseIsSaidInWordsAPersonCanActOn() async throws {
        let (studio, folder, _) = try await studio()
        let second = StudioServer(
            pipelinePath: folder.path + "/property-list.yaml", port: studio.port, scratch: folder.path + "/.second", environment: [:])
        do {
            try await second.run(stopsOnSignals: false) { _ in Issue.record("a second studio listened on a port in use") }
        } catch let error as StudioStartError {
            #expect(
                error.message
                    == "cannot listen on 127.0.0.1:\(studio.port): another program does; pick another --port, or leave it out for any free one"
            )
        }
    }

    @Test func itListensOnLoopbackOnly() async throws {
        let (studio, _, _) = try await studio()
        // Every IPv4 address of this machine but loopback refuses the connection.
        var addresses: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&addresses) == 0 else { throw StudioClientError("getifaddrs failed") }
        defer { freeifaddrs(addresses) }
        var others: [String] = []
        var entry = addresses
        while let current = entry {
            if let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) {
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                    var raw = ipv4.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
                let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !name.hasPrefix("127.") { others.append(name) }
            }
            entry = current.pointee.ifa_next
        }
        for address in others {
            do {
                let socket = try StudioUnderTest.connected(to: address, port: studio.port)
                close(socket)
                Issue.record("the studio answered on \(address)")
            } catch let error as StudioClientError {
                #expect(error.errno == ECONNREFUSED, "\(address): \(error)")
            }
        }
        #expect(try await studio.send("GET", "/api/pipeline/modified").status == 200, "and it does on 127.0.0.1")
    }

    @Test func thePageCarriesItsScriptAndStyleAndMayLoadNothingElse() async throws {
        let (studio, _, _) = try await studio()
        let page = try await studio.send("GET", "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.hasPrefix("default-src 'none'; script-src 'nonce-"))
        #expect(policy.contains("connect-src 'self'") && policy.contains("frame-ancestors 'none'"))
        let nonce = try #require(policy.split(separator: "'nonce-").dropFirst().first?.prefix { $0 != "'" })
        #expect(page.body.contains("<script nonce=\"\(nonce)\">") && page.body.contains("<style nonce=\"\(nonce)\">"))
        #expect(page.body.contains("X-Reform-Token"), "the script is inline")
        #expect(!page.body.contains("src=\"") && !page.body.contains("href=\""), "no script, style, font or image is fetched")
        #expect(!page.body.contains("{{"), "every placeholder is filled")
        #expect(page.headers["x-frame-options"] == "DENY" && page.headers["cache-control"] == "no-store")
        // Each page gets a nonce of its own.
        let again = try await studio.send("GET", "/")
        #expect(again.headers["content-security-policy"] != policy)
    }

    @Test func checkingGivesReformValidatesDiagnosticsAtTheirLineAndColumn() async throws {
        let (studio, folder, _) = try await studio()
        let path = folder.path + "/property-list.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let broken = text.replacingOccurrences(of: "\nmanagers:", with: "\nmanagrs:")
        let answer = try await studio.json("POST", "/api/check", body: broken)
        #expect(answer["ok"] == false)
        let diagnostics = answer["diagnostics"]?.arrayValue?.compactMap(\.objectValue) ?? []
        var expected: [Diagnostic] = []
        do { _ = try PipelineLoader(environment: [:]).load(bytes: Array(broken.utf8), file: path, folder: folder.path) } catch {
            expected = error.diagnostics
        }
        #expect(!expected.isEmpty)
        #expect(diagnostics.map { $0["text"]?.stringValue } == expected.map(\.description))
        let typo = try #require(diagnostics.first { $0["message"]?.stringValue?.contains("did you mean 'managers'") == true })
        let line = broken.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == "managrs:" }.map { $0 + 1 }
        #expect(typo["line"] == line.map { .int($0) } && typo["column"] == 1 && typo["severity"] == "error")

        let fixed = try await studio.json("POST", "/api/check", body: text)
        #expect(fixed["ok"] == true)
        #expect(fixed["summary"] == "ok (3 managers, 1 reformer, 3 runs)")
        let runs = fixed["runs"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(runs.map { $0["name"]?.stringValue } == ["default", "rows", "sqlite"])
        let params = runs.first?["params"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(params.map { $0["name"]?.stringValue } == ["city", "page_size"])
        #expect(params.first?["pattern"] == "^[a-z]+$" && params.first?["value"] == "shanghai" && params.first?["required"] == false)
        #expect(params.last?["type"] == "int")
        // Checking never writes the file.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test func savingWritesTheFileWholeAndChecksIt() async throws {
        let (studio, folder, _) = try await studio()
        let path = folder.path + "/property-list.yaml"
        let before = try await studio.json("GET", "/api/pipeline")
        let text = try #require(before["text"]?.stringValue)
        let edited = "# edited in the studio\n" + text
        let saved = try await studio.json("PUT", "/api/pipeline", body: edited)
        #expect(saved["ok"] == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == edited)
        #expect(try await studio.json("GET", "/api/pipeline/modified")["modified"] == saved["modified"])
        // Nothing but the file is left in its folder (no temporary file).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["fixtures", "property-list.yaml"])
    }

    /// Polls the current run until it is no longer running.
    func finished(_ studio: StudioUnderTest) async throws -> Object {
        while true {
            let run = try await studio.json("GET", "/api/runs/current")
            if run["phase"] != "running" { return run }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func aRunFromThePageIsWatchedAndWritesUnderTheScratchFolderOnly() async throws {
        let (studio, folder, scratch) = try await studio()
        #expect(try await studio.json("GET", "/api/runs/current")["phase"] == "none")
        let started = try await studio.json("POST", "/api/runs", body: #"{"mode": "replay", "params": {"city": "shanghai"}}"#)
        #expect(started["id"] == 1)
        let run = try await finished(studio)
        #expect(run["phase"] == "done", "\(run)")
        #expect(run["summary"] == "reform: 17 in, 17 out, 0 rejected")
        let watch = try #require(run["watch"]?.objectValue)
        #expect(watch["pages_seen"] == 8)
        let stage = watch["outputs"]?.arrayValue?.first?.objectValue?["stages"]?.arrayValue?.first?.objectValue
        #expect(stage?["name"] == "property-list" && stage?["in"] == 17 && stage?["out"] == 17)
        // The poll leaves the pages' bodies out; a page is read whole by its number.
        let pages = watch["pages"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(pages.map { $0["number"] } == (1...8).map { .int($0) })
        #expect(pages.allSatisfy { $0["body"] == nil && $0["body_bytes"] != nil })
        let second = try await studio.json("GET", "/api/runs/current/pages/2")
        #expect(second["url"] == "/zufang/list?city=shanghai&page_size=3&page=2")
        #expect(second["body"]?.stringValue?.contains("\"list\"") == true)
        #expect(try await studio.send("GET", "/api/runs/current/pages/9").status == 404)
        // Polled again as read: nothing changed.
        guard case .int(let changes)? = watch["changes"] else {
            Issue.record("the watch has no count of changes")
            return
        }
        let again = try await studio.json("GET", "/api/runs/current?run=1&changes=\(changes)&phase=done")
        #expect(again["unchanged"] == true && again["id"] == 1)
        #expect(try await studio.json("GET", "/api/runs/current?run=1&changes=0&phase=done")["watch"] != nil)
        // The figures `--stats json` prints: each manager's landing and each reformer's counts.
        let stats = run["stats"]?.objectValue
        #expect(stats?["managers"]?.arrayValue?.count == 3 && stats?["steps"]?.arrayValue?.count == 1, "\(run["stats"] ?? .null)")
        let files = run["files"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(files.map { $0["path"]?.stringValue } == ["standard-output"])
        #expect(files.first?["text"]?.stringValue?.contains("静安寺精装一居室") == true)
        #expect(FileManager.default.fileExists(atPath: scratch + "/run-1/standard-output"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [".scratch", "fixtures", "property-list.yaml"])

        // A table output's database goes under the scratch folder too, and shows as its rows.
        _ = try await studio.json("POST", "/api/runs", body: #"{"run": "sqlite"}"#)
        let loaded = try await finished(studio)
        #expect(loaded["phase"] == "done", "\(loaded)")
        let database = loaded["files"]?.arrayValue?.compactMap(\.objectValue).first { $0["path"] == "out/property-list.db" }
        #expect(database?["kind"] == "sqlite")
        let rows = database?["text"]?.stringValue?.split(separator: "\n") ?? []
        #expect(rows.first?.hasPrefix("table listings (kPropertyListDataKeyID") == true && rows.count == 18, "\(rows.prefix(3))")
        #expect(FileManager.default.fileExists(atPath: scratch + "/run-2/out/property-list.db"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"), "nothing in the pipeline's folder")
        _ = try await studio.json("POST", "/api/runs", body: #"{"run": "sqlite"}"#)
        #expect(try await finished(studio)["phase"] == "done")
        // Loaded again: the table is compared by its rows (the same), not as a file (its load log changed).
        let changed = try await studio.json("GET", "/api/runs/changes")["files"]?.arrayValue?.first?.objectValue
        #expect(
            changed?["path"] == "out/property-list.db#listings" && changed?["kind"] == "records" && changed?["added"] == 0
                && changed?["removed"] == 0, "\(changed.map { Value.object($0) } ?? .null)")

        // A run the pipeline cannot start says why, and the last run stays readable.
        let refused = try await studio.send("POST", "/api/runs", body: #"{"run": "nightly"}"#)
        #expect(refused.status == 422, "\(refused.body)")
        #expect(
            refused.body.contains("no run called 'nightly'") && refused.body.contains("(runs: default, rows, sqlite)"), "\(refused.body)")
        #expect(try await studio.json("GET", "/api/runs/current")["id"] == 3, "the last run stays readable")
    }

    @Test func theStateOfIncrementalManagersIsShownAndResetFromThePage() async throws {
        let (studio, folder, scratch) = try await studio(on: "github-incremental.yaml")
        // The form does not ask for what the fan-out sets (a required repo, one per partition).
        let text = try String(contentsOfFile: folder.path + "/github-incremental.yaml", encoding: .utf8)
        let params = try await studio.json("POST", "/api/check", body: text)["runs"]?.arrayValue?.first?.objectValue?["params"]?.arrayValue
        let repo = params?.compactMap(\.objectValue).first { $0["name"] == "repo" }
        #expect(repo?["required"] == false && repo?["fanned_out"] == true, "\(repo.map { Value.object($0) } ?? .null)")
        let empty = try await studio.json("GET", "/api/state")
        #expect(empty["place"] == .string(scratch + "/state.json") && empty["rows"] == .array([]))

        _ = try await studio.json("POST", "/api/runs", body: #"{"mode": "replay"}"#)
        #expect(try await finished(studio)["phase"] == "done")
        let state = try await studio.json("GET", "/api/state?run=default")
        #expect(
            state["columns"]?.arrayValue?.compactMap(\.stringValue) == [
                "MANAGER", "PARTITION", "BOOKMARK", "AGE", "AT BOOKMARK", "NEXT RUN",
            ])
        let rows = state["rows"]?.arrayValue?.compactMap { $0.arrayValue?.compactMap(\.stringValue) } ?? []
        // The partitions in the order the state saved them (two fetched at once: either order).
        #expect(rows.map { $0.prefix(2).joined(separator: " ") }.sorted() == ["issues repo=gadgets", "issues repo=widgets"], "\(rows)")
        #expect(rows.allSatisfy { $0[2].hasPrefix("20") && $0[3].hasSuffix("ago") && $0[5] == "asks from the bookmark" }, "\(rows)")
        // The pipeline's own state file (beside its output) is not the studio's.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))

        let one = try await studio.json("POST", "/api/state/reset", body: #"{"manager": "issues", "partition": "repo=widgets"}"#)
        #expect(one["reset"] == .string("state of partition 'repo=widgets' of manager 'issues' reset in \(scratch)/state.json"))
        let left = try await studio.json("GET", "/api/state")["rows"]?.arrayValue?.compactMap {
            $0.arrayValue?.first(where: { $0 != "issues" })
        }
        #expect(left == ["repo=gadgets"], "\(left ?? [])")
        let reset = try await studio.json("POST", "/api/state/reset", body: #"{"manager": "issues"}"#)
        #expect(reset["reset"] == .string("state of manager 'issues' reset in \(scratch)/state.json"))
        #expect(try await studio.json("GET", "/api/state")["rows"] == .array([]))
        let unknown = try await studio.send("POST", "/api/state/reset", body: #"{"run": "nightly"}"#)
        #expect(unknown.status == 422 && unknown.body.contains("no run called 'nightly'"), "\(unknown.body)")
    }

    @Test func whatChangedSinceTheLastRunIsShownByRecordOrByKey() async throws {
        let (studio, folder, scratch) = try await studio(on: "orders.yaml")
        #expect(try await studio.send("GET", "/api/runs/changes").status == 409, "no run yet")
        _ = try await studio.json("POST", "/api/runs", body: "{}")
        #expect(try await finished(studio)["phase"] == "done")
        #expect(try await studio.json("GET", "/api/runs/changes")["none"]?.stringValue?.hasPrefix("no earlier run of 'default'") == true)

        // The marketplace's orders now in GBP: five records of out/orders.ndjson change.
        let text = try String(contentsOfFile: folder.path + "/orders.yaml", encoding: .utf8)
        _ = try await studio.json("PUT", "/api/pipeline", body: text.replacingOccurrences(of: "{ value: EUR }", with: "{ value: GBP }"))
        _ = try await studio.json("POST", "/api/runs", body: "{}")
        #expect(try await finished(studio)["phase"] == "done")

        func file(_ path: String, in answer: Object) -> Object? {
            answer["files"]?.arrayValue?.compactMap(\.objectValue).first { $0["path"] == .string(path) }
        }
        let whole = try await studio.json("GET", "/api/runs/changes")
        #expect(whole["run"] == 2 && whole["against"] == 1 && whole["run_name"] == "default")
        let records = try #require(file("out/orders.ndjson", in: whole))
        #expect(records["kind"] == "records" && records["added"] == 5 && records["removed"] == 5 && records["changed"] == nil)
        #expect(records["added_items"]?.arrayValue?.allSatisfy { $0.objectValue?["kOrderKeyCurrency"] == "GBP" } == true)
        let csv = try #require(file("out/paid-orders.csv", in: whole))
        #expect(csv["kind"] == "lines", "CSV is compared line by line")

        let keyed = try await studio.json("GET", "/api/runs/changes?key=kOrderKeyID")
        let byKey = try #require(file("out/orders.ndjson", in: keyed))
        #expect(byKey["key"] == "kOrderKeyID" && byKey["added"] == 0 && byKey["removed"] == 0 && byKey["changed"] == 5)
        let pair = byKey["changed_items"]?.arrayValue?.first?.objectValue
        #expect(pair?["old"]?.objectValue?["kOrderKeyCurrency"] == "EUR" && pair?["new"]?.objectValue?["kOrderKeyCurrency"] == "GBP")
        #expect(try await studio.send("GET", "/api/runs/changes?key=a..b").status == 400)

        // Only the last two runs' files are kept.
        _ = try await studio.json("POST", "/api/runs", body: "{}")
        #expect(try await finished(studio)["phase"] == "done")
        let kept = try FileManager.default.contentsOfDirectory(atPath: scratch).filter { $0.hasPrefix("run-") }.sorted()
        #expect(kept == ["run-2", "run-3"])
    }

    @Test func aRunOverInputFilesReadsThemFromThePipelinesFolderOnly() async throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "batch.yaml",
            """
            reform: 1
            managers:
              items: {}
            reformers:
              priced:
                steps:
                  - convert: { price: double }
            runs:
              default: { managers: [items], reform: [priced], output: { format: ndjson } }
            """)
        try folder.write("data/items.ndjson", #"{"id": 1, "price": "2.5"}"# + "\n" + #"{"id": 2, "price": "x"}"# + "\n")
        let outside = try TemporaryFolder()
        try outside.write("secret.ndjson", #"{"id": 9}"# + "\n")
        let studio = try await StudioUnderTest(pipeline: path, scratch: folder.path + "/.scratch")

        _ = try await studio.json("POST", "/api/runs", body: #"{"inputs": {"items": "data/items.ndjson"}}"#)
        let run = try await finished(studio)
        #expect(run["phase"] == "done" && run["rejected"] == 1, "\(run)")
        let landed = run["watch"]?.objectValue?["managers"]?.arrayValue?.first?.objectValue
        #expect(landed?["records"] == 2)
        let files = run["files"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(files.map { $0["path"]?.stringValue } == ["dead-letter.ndjson", "standard-output"])

        for (given, reason) in [
            (outside.path + "/secret.ndjson", "is outside the pipeline's folder"), ("../x.ndjson", "is outside the pipeline's folder"),
            ("data/none.ndjson", "does not exist"),
        ] {
            let refused = try await studio.send("POST", "/api/runs", body: #"{"inputs": {"items": "\#(given)"}}"#)
            #expect(refused.status == 422 && refused.body.contains(reason), "\(given): \(refused.body)")
        }
        let unknown = try await studio.send("POST", "/api/runs", body: #"{"inputs": {"itms": "data/items.ndjson"}}"#)
        #expect(unknown.status == 422 && unknown.body.contains("no manager 'itms'"), "\(unknown.body)")
    }

    /// A table output with a child table: the Output tab shows each table's first rows, and
    /// Changes compares each table's rows, by the key asked for.
    @Test func eachTableOfADatabaseIsShownAndComparedByItsRows() async throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "issues.yaml",
            """
            reform: 1
            managers: { issues: {} }
            reformers:
              issue:
                keys: { id: kIssueKeyID, title: kIssueKeyTitle, labels: kIssueKeyLabels }
                map: { id: id, title: title, labels: "labels?" }
            runs:
              default:
                outputs:
                  - { reform: [issue], sqlite: out/gh.db, table: issues, mode: upsert, key: [id], types: { id: int },
                      schema: evolve, child_tables: [labels] }
            """)
        try folder.write(
            "data/issues.ndjson",
            #"{"id": 1, "title": "crash", "labels": [{"name": "bug"}]}"# + "\n" + #"{"id": 2, "title": "docs", "labels": []}"# + "\n")
        let studio = try await StudioUnderTest(pipeline: path, scratch: folder.path + "/.scratch")
        _ = try await studio.json("POST", "/api/runs", body: #"{"inputs": {"issues": "data/issues.ndjson"}}"#)
        let first = try await finished(studio)
        #expect(first["phase"] == "done", "\(first)")
        let text = first["files"]?.arrayValue?.compactMap(\.objectValue).first { $0["path"] == "out/gh.db" }?["text"]?.stringValue
        #expect(
            text == "table issues (kIssueKeyID, kIssueKeyTitle):\n{\"kIssueKeyID\":1,\"kIssueKeyTitle\":\"crash\"}\n"
                + "{\"kIssueKeyID\":2,\"kIssueKeyTitle\":\"docs\"}\n\ntable issues__labels (kIssueKeyID, _position, name):\n"
                + "{\"kIssueKeyID\":1,\"_position\":0,\"name\":\"bug\"}\n", "\(text ?? "")")

        try folder.write(
            "data/issues.ndjson",
            #"{"id": 1, "title": "crash!", "labels": [{"name": "bug", "color": "red"}, {"name": "ui"}]}"# + "\n"
                + #"{"id": 2, "title": "docs", "labels": []}"# + "\n")
        _ = try await studio.json("POST", "/api/runs", body: #"{"inputs": {"issues": "data/issues.ndjson"}}"#)
        #expect(try await finished(studio)["phase"] == "done")
        let changes = try await studio.json("GET", "/api/runs/changes?key=kIssueKeyID")["files"]?.arrayValue?.compactMap(\.objectValue)
        let byTable = Dictionary(uniqueKeysWithValues: (changes ?? []).map { ($0["path"]?.stringValue ?? "", $0) })
        #expect(Array(byTable.keys).sorted() == ["out/gh.db#issues", "out/gh.db#issues__labels"])
        let issues = byTable["out/gh.db#issues"]
        #expect(issues?["changed"] == 1 && issues?["added"] == 0 && issues?["removed"] == 0, "\(issues.map(Value.object) ?? .null)")
        let labels = byTable["out/gh.db#issues__labels"]
        // Keyed by the parent key, both of issue 1's rows have it: the later one is compared.
        #expect(labels?["kind"] == "records" && labels?["changed"] == 1, "\(labels.map(Value.object) ?? .null)")
        let whole = try await studio.json("GET", "/api/runs/changes")["files"]?.arrayValue?.compactMap(\.objectValue)
        let labelRows = whole?.first { $0["path"] == "out/gh.db#issues__labels" }
        #expect(labelRows?["added"] == 2 && labelRows?["removed"] == 1, "\(labelRows.map(Value.object) ?? .null)")
    }

    /// A run from the page loads a `postgres:` output's real database and rolls it back: the
    /// server checks every row, nothing is kept, and the summary says so.
    @Test(.enabled(if: PostgresServer.isUsable, "no PostgreSQL server (install postgresql, or set REFORM_TEST_POSTGRES_URL)"))
    func aPostgresOutputIsLoadedAndRolledBack() async throws {
        let database = try PostgresServer.database()
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "load.yaml",
            """
            reform: 1
            managers: { items: {} }
            reformers:
              item:
                keys: { id: kItemKeyID }
                map: { id: id }
            runs:
              default:
                outputs:
                  - { reform: [item], postgres: "${PG_URL}", table: items, mode: append, types: { id: int } }
            """)
        try folder.write("data/items.ndjson", #"{"id": 1}"# + "\n" + #"{"id": 2}"# + "\n")
        let studio = try await StudioUnderTest(pipeline: path, scratch: folder.path + "/.scratch", environment: ["PG_URL": database.url])
        _ = try await studio.json("POST", "/api/runs", body: #"{"inputs": {"items": "data/items.ndjson"}}"#)
        let run = try await finished(studio)
        #expect(run["phase"] == "done", "\(run)")
        #expect(run["summary"]?.stringValue?.contains("loaded and rolled back, nothing kept") == true, "\(run["summary"] ?? .null)")
        #expect(try database.client().rows("SELECT to_regclass('items') IS NULL") == ["t"])
    }

    @Test func aRunningLiveRunIsCancelledFromThePage() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "slow.yaml",
            service()
                + """

                managers:
                  slow:
                    service: api
                    path: /slow
                    params: { delay: 600, tag: studio }
                    records: tag
                runs:
                  default: { managers: [slow], output: { format: ndjson } }
                """)
        let studio = try await StudioUnderTest(pipeline: path, scratch: folder.path + "/.scratch", environment: ["TEST_URL": server.url])
        _ = try await studio.json("POST", "/api/runs", body: #"{"mode": "live"}"#)
        try await server.waitForRequest(path: "/slow")
        #expect(try await studio.json("GET", "/api/runs/current")["phase"] == "running")
        _ = try await studio.json("DELETE", "/api/runs/current")
        let run = try await finished(studio)
        #expect(run["phase"] == "cancelled", "\(run)")
        let ended = try await server.waitForEnd(path: "/slow")
        #expect(ended["client_closed"] == true, "the request in flight was closed: \(ended)")
    }
}
