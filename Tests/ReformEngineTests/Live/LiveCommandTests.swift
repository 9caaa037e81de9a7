import Foundation
import ReformSDK
import ReformSystem
import ReformTestSupport
import Testing

/// `reform run --live / --record / --env` through the real binary and the real server.
@Suite(.timeLimit(.minutes(10))) struct LiveCommandTests {
    /// Runs the `reform` binary built beside the tests, from the project root.
    func reform(_ arguments: [String], environment: [String: String]) async throws -> ReformBinary.Outcome {
        try await ReformBinary.run(arguments, environment: environment)
    }

    @Test(arguments: ["built-in", "async-http-client"])
    func theCatalogPipelineLiveWritesWhatItsFixturesReplay(client: String) async throws {
        let server = try TestServer()
        let replayed = try await reform(["run", "Pipelines/catalog.yaml", "--quiet"], environment: [:])
        let live = try await reform(
            ["run", "Pipelines/catalog.yaml", "--live", "--http-client", client, "--quiet"], environment: ["REFORM_CATALOG_URL": server.url]
        )
        #expect(replayed.status == 0 && live.status == 0, "\(replayed.stderr)\(live.stderr)")
        #expect(live.stdout == replayed.stdout)
        #expect(live.stdout.split(separator: "\n").count == 69)
        #expect(try await server.requests(path: "/paged/link").count == 3)
    }

    @Test func verboseLogsGoToStandardErrorAsJSONLinesOrText() async throws {
        let server = try TestServer()
        let environment = ["REFORM_CATALOG_URL": server.url]
        let json = try await reform(
            ["run", "Pipelines/catalog.yaml", "--live", "-vv", "--log-format", "json", "--output", "/dev/null"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let lines = json.stderr.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let stops = lines.filter { $0["message"] as? String == "paging stopped" }
        #expect(stops.count == 3, "\(json.stderr)")
        #expect(stops.allSatisfy { $0["level"] as? String == "info" && $0["manager"] is String && $0["reason"] is String })
        #expect(lines.contains { $0["message"] as? String == "request" && $0["level"] as? String == "debug" })
        let text = try await reform(
            ["run", "Pipelines/catalog.yaml", "--live", "--log-level", "info", "--output", "/dev/null"], environment: environment)
        #expect(text.status == 0)
        #expect(text.stderr.contains(" info paging stopped "), "\(text.stderr)")
        #expect(!text.stderr.contains(" debug "), "info leaves out requests")
        let bad = try await reform(["run", "Pipelines/catalog.yaml", "--log-level", "loud"], environment: [:])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("unknown log level 'loud'; expected one of: trace, debug, info"), "\(bad.stderr)")
    }

    @Test func recordingWritesReadableFixturesWithoutSecretsAndReplaysThem() async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let pipeline = try folder.write(
            "echo.yaml",
            """
            reform: 1
            services:
              api:
                base_url: "${TEST_URL}"
                headers: { X-Secret: "${ECHO_SECRET}" }
                auth: { api_key: { query: api_key, value: "${ECHO_SECRET}" } }
            managers:
              echo: { service: api, path: /echo, params: { q: hello }, fixtures: fixtures/echo }
              pages:
                service: api
                path: /paged/cursor
                params: { limit: 4, total: 10 }
                records: items
                paging: { policy: cursor, param: cursor, token: next_cursor }
                fixtures: fixtures/pages
            runs:
              default: { managers: [echo, pages], output: { format: ndjson } }
            """)
        let environment = ["TEST_URL": server.url, "ECHO_SECRET": "hunter2-secret"]
        let recorded = try await reform(["run", pipeline, "--record"], environment: environment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("recorded 1 exchange to"))
        #expect(recorded.stderr.contains("recorded 3 exchanges to"))
        let fixture = try folder.read("fixtures/echo/001.json")
        #expect(fixture.contains("\"x-secret\": \"***\""), "the echoed secret is redacted")
        #expect(!fixture.contains("hunter2-secret"))
        #expect(try folder.read("fixtures/pages/003.json").contains("\"cursor\""))
        let replayed = try await reform(["run", pipeline, "--quiet"], environment: ["TEST_URL": "http://127.0.0.1:9"])
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout.split(separator: "\n").count == 11)
    }

    @Test func anUnknownEnvironmentAndAnUnreachableServiceAreClearFailures() async throws {
        let env = try await reform(["run", "Pipelines/catalog.yaml", "--live", "--env", "staging"], environment: [:])
        #expect(env.status == 1)
        #expect(env.stderr.contains("no base URL for environment 'staging' (it has: default)"))
        let down = try await reform(["run", "Pipelines/catalog.yaml", "--live"], environment: ["REFORM_CATALOG_URL": "http://127.0.0.1:9"])
        #expect(down.status == 1)
        #expect(down.stderr.contains("manager 'listing'"))
        #expect(down.stderr.contains("connection refused"))
        #expect(down.stdout.isEmpty, "nothing half-written")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalCancelsTheRequestsAndLeavesNoOutput(signal: Int32) async throws {
        let server = try TestServer()
        let folder = try TemporaryFolder()
        let pipeline = try folder.write(
            "slow.yaml",
            """
            reform: 1
            services:
              api: { base_url: "${TEST_URL}" }
            managers:
              fast: { service: api, path: /paged/offset, params: { limit: 5 }, records: items }
              slow: { service: api, path: /slow, params: { delay: 900, tag: s }, timeout: 1200s }
            runs:
              default: { managers: [fast, slow], output: { format: ndjson, path: out/slow.ndjson } }
            """)
        let errors = open(folder.path + "/stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(errors) }
        // In its own folder: the output path is relative to the working folder, and two runs at
        // once on one output are refused (the other signal's case runs beside this one).
        let command = "cd '\(folder.path)' && exec '\(ReformBinary.path)' run '\(pipeline)' --live --dead-letter dead.ndjson"
        let pid = try Spawn.start(
            ["/bin/sh", "-c", command], stdout: errors, stderr: errors, environment: ["TEST_URL=\(server.url)", "PATH=/usr/bin:/bin"])
        // The slow answer takes 15 minutes, so that the signal comes first however long this
        // task waits for a thread on a loaded machine (a 2-minute answer once came first).
        try await server.waitForRequest(path: "/slow")
        kill(pid, signal)
        let status = try await Spawn.exitStatus(of: pid)
        #expect(status == 128 + signal)
        let stderr = try folder.read("stderr.txt")
        #expect(stderr.contains("interrupted"), "\(stderr)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await server.requests(path: "/slow").first?["client_closed"] == .bool(true), "the request was cancelled")
        #expect(!folder.exists("out/slow.ndjson"), "no output is written")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/out")) ?? []
        #expect(leftovers.isEmpty, "no half-written temporary file is left: \(leftovers)")
    }
}
