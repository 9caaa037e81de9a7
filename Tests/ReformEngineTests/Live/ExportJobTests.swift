import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// Asynchronous export jobs (`job:`) against the test server's `/jobs`: created, polled with
/// backoff until done, the result files (gzip NDJSON) read as pages — pre-signed ones on another
/// origin without the service's credentials —, failures and time-outs typed, and a recorded run
/// replayed offline without waiting.
@Suite(.timeLimit(.minutes(10))) struct ExportJobTests {
    /// A pipeline with one export manager; `spec` is the create body's JSON (rows, parts, polls…).
    /// `max_wait` is far from anything a loaded machine takes: a fresh clone's first `swift test`
    /// once needed 11 s for two 10 ms polls.
    static func pipeline(_ spec: String, poll: String = "every: 10ms, max_wait: 10m", extra: String = "") -> String {
        service("auth: { bearer: \"${TOKEN}\" }")
            + """

            managers:
              export:
                service: api
                params: { rows: { type: int, default: 25 } }
                job:
                  create: { path: /jobs, body: { json: \(spec) } }
                  poll: { path: "/jobs/{job_id}", \(poll) }
                  error: error.message
                  results: files
                format: ndjson
            \(extra)
            """
    }

    @Test(arguments: ["same", "other"])
    func aJobIsCreatedPolledAndItsFilesAreThePages(files: String) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            ExportJobTests.pipeline(#"{ rows: "{rows}", parts: 3, polls: 2, files: \#(files) }"#), environment: ["TOKEN": "job-token"])
        let manager = try server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"])
        let (records, pages, stop) = try await manager.loadAll()
        #expect(records.map { $0.objectValue?["id"] } == (1...25).map { .int($0) })
        #expect(pages == 3)
        #expect(stop == "all results (3)")
        let log = try await server.requests(path: nil).compactMap { $0["path"]?.stringValue }
        #expect(log.filter { $0 == "/jobs" }.count == 1)
        #expect(log.filter { $0 == "/jobs/job-1" }.count == 3, "two polls running, one done: \(log)")
        // A signed file on another origin is refused (400) if the bearer goes with it: it did not.
        #expect(log.filter { $0.hasPrefix("/jobs/job-1/files/") }.count == 3)
    }

    @Test func aFailedJobFailsTheManagerSayingWhy() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(ExportJobTests.pipeline("{ polls: 1, fail: true }"), environment: ["TOKEN": "job-token"])
        do {
            _ = try await server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"]).load()
            Issue.record("a failed job landed")
        } catch {
            #expect((error as? ManagerError)?.kind == .jobFailed)
            #expect("\(error)".contains("polling job job-1: the job failed: the export query timed out"), "\(error)")
        }
    }

    @Test func aJobPastItsMaxWaitFailsWithItsLastStatus() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            ExportJobTests.pipeline("{ polls: 1000 }", poll: "every: 10ms, max_every: 20ms, max_wait: 150ms"),
            environment: ["TOKEN": "job-token"])
        do {
            _ = try await server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"]).load()
            Issue.record("a job that never ends landed")
        } catch {
            #expect((error as? ManagerError)?.kind == .jobFailed)
            #expect("\(error)".contains("the job is still 'running' after"), "\(error)")
            #expect("\(error)".contains("(the job's 'max_wait'): raise it"), "\(error)")
        }
    }

    @Test func stoppingTheManagerWhileTheJobRunsCancelsTheJob() async throws {
        let server = try TestServer()
        let yaml = ExportJobTests.pipeline("{ polls: 100000 }", poll: "every: 10ms, max_every: 20ms, max_wait: 10m")
            .replacing("      results: files\n", with: "      results: files\n      cancel: { path: \"/jobs/{job_id}\" }\n")
        let pipeline = try server.pipeline(yaml, environment: ["TOKEN": "job-token"])
        let manager = try server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"])
        let loading = Task { try await manager.load() }
        try await server.waitForRequest(path: "/jobs/job-1")
        loading.cancel()
        #expect((try? await loading.value) == nil)
        let methods = try await server.requests(path: "/jobs/job-1").compactMap { $0["method"]?.stringValue }
        #expect(methods.last == "DELETE" && methods.dropLast().allSatisfy { $0 == "GET" }, "\(methods)")
    }

    @Test func aDoneAnswerWithoutItsResultsIsAFailure() async throws {
        let server = try TestServer()
        let yaml = ExportJobTests.pipeline("{ polls: 0 }").replacing("results: files", with: "results: result.urls")
        let pipeline = try server.pipeline(yaml, environment: ["TOKEN": "job-token"])
        do {
            _ = try await server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"]).load()
            Issue.record("a done job without results landed")
        } catch {
            #expect((error as? ManagerError)?.kind == .jobFailed)
            #expect("\(error)".contains("the job is completed, but its answer has no result files at 'result.urls'"), "\(error)")
        }
    }

    @Test func aJobWithNoFilesLandsNothing() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(ExportJobTests.pipeline("{ polls: 0, files: none }"), environment: ["TOKEN": "job-token"])
        let (records, _, stop) = try await server.manager("export", in: pipeline, environment: ["TOKEN": "job-token"]).loadAll()
        #expect(records.isEmpty)
        #expect(stop == "all results (0)")
    }

    @Test func aRecordedJobReplaysOfflineThroughItsPolls() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let yaml = ExportJobTests.pipeline(
            #"{ rows: "{rows}", parts: 2, polls: 2, files: other }"#, poll: "every: 200ms, max_wait: 10s",
            extra: "runs: { default: { output: { format: ndjson } } }"
        )
        .replacing("    format: ndjson\n", with: "    format: ndjson\n    fixtures: fixtures/export\n")
        let pipeline = try folder.write("export.yaml", yaml)
        let recorded = try await ReformBinary.run(
            ["run", pipeline, "--record", "--quiet"], environment: ["TEST_URL": server.url, "TOKEN": "job-token"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        // The create, three polls and two files, in order; small files inside their exchanges.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/fixtures/export").sorted()
        #expect(names == ["001.json", "002.json", "003.json", "004.json", "005.json", "006.json"])
        #expect(try folder.read("fixtures/export/005.json").contains(#""body_text": "{\"id\": 1, "#))
        #expect(try !folder.read("fixtures/export/002.json").contains("job-token"))
        let replayed = try await ReformBinary.run(
            ["run", pipeline, "--quiet"], environment: ["TEST_URL": "http://127.0.0.1:9", "TOKEN": "job-token"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout == recorded.stdout)
        #expect(replayed.stdout.split(separator: "\n").count == 25)
    }

    @Test func mistakesAreNamedWhereTheyAre() throws {
        func manager(_ lines: String) -> String {
            "reform: 1\nservices: { api: { base_url: \"http://x.test\" } }\nmanagers:\n  m:\n    service: api\n" + lines
        }
        #expect(
            try loadDiagnostics(manager("    job: { create: { path: /jobs }, poll: { path: /jobs }, results: files }\n")) == [
                "p.yaml:6:43: error: 'poll' in 'job' of manager 'm' has no {job_id} in its path; write where the job's id goes, like /exports/{job_id}"
            ])
        #expect(
            try loadDiagnostics(
                manager("    path: /x\n    job: { create: { path: /jobs }, poll: { path: \"/jobs/{job_id}\" }, results: files }\n")) == [
                    "p.yaml:6:11: error: manager 'm' has 'job' and 'path': a job manager's requests are its 'job' create and poll, and its pages the result files"
                ])
        #expect(
            try loadDiagnostics(
                manager("    job: { create: { path: \"/jobs/{nope}\" }, poll: { path: \"/jobs/{job_id}\" }, results: files }\n")
            )
            .first?.contains("'path' in 'create' in 'job' of manager 'm' uses {nope}") == true)
        // An incremental export places its cursor in the create body, and restarts whole.
        let incremental =
            "    job: { create: { path: /jobs, body: { json: { since: \"{since}\" } } }, poll: { path: \"/jobs/{job_id}\" }, results: files }\n"
            + "    incremental: { cursor: updated_at, param: since"
        #expect(try loadDiagnostics(manager(incremental + " }\n")) == [])
        #expect(
            try loadDiagnostics(manager(incremental + ", checkpoint: 5 }\n")).first?.contains(
                "'checkpoint' in 'incremental' of manager 'm': an export job cannot resume midway") == true)
    }
}
