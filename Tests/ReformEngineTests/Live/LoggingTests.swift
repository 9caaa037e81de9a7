import Foundation
import Logging
import ReformEngine
import ReformSDK
import Testing

/// The `Logger` a run is handed hears of requests, retries and page stops, with secrets redacted,
/// against the real loopback server.
@Suite(.timeLimit(.minutes(10))) struct LoggingTests {
    /// A log handler that keeps every line, for the test to read.
    struct CapturingHandler: LogHandler {
        final class Lines: @unchecked Sendable {
            private let lock = NSLock()
            private var lines: [(level: Logger.Level, message: String, metadata: [String: String])] = []
            func append(_ line: (Logger.Level, String, [String: String])) { lock.withLock { lines.append(line) } }
            var all: [(level: Logger.Level, message: String, metadata: [String: String])] { lock.withLock { lines } }
        }

        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).mapValues(\.description)
            lines.append((event.level, event.message.description, fields))
        }
    }

    /// The lines logged at debug and above by a live run of `yaml` against `server`.
    func logged(_ yaml: String, server: TestServer, environment: [String: String] = [:]) async throws
        -> [(level: Logger.Level, message: String, metadata: [String: String])]
    {
        let pipeline = try server.pipeline(yaml)
        let lines = CapturingHandler.Lines()
        var options = RunOptions()
        options.mode = .live
        options.environment = environment.merging(["TEST_URL": server.url]) { a, _ in a }
        var logger = Logger(label: "test") { _ in CapturingHandler(lines: lines) }
        logger.logLevel = .debug
        options.logger = logger
        _ = try await Runner(pipeline: pipeline, options: options).run()
        return lines.all
    }

    @Test func aRetryAfterWaitIsLoggedWithItsLength() async throws {
        let server = try TestServer()
        let logged = try await logged(
            """
            reform: 1
            services:
              api: { base_url: "${TEST_URL}", retry: { attempts: 3, base: 10ms, max: 2s } }
            managers:
              m: { service: api, path: /ratelimited, params: { key: logged, fail: 1, retry_after: 1 }, records: items }
            runs:
              default: { managers: [m], output: { format: ndjson, path: /dev/null } }
            """, server: server)
        // A 429 with Retry-After and no rate-limit headers is a retry that waits what the service asks.
        let wait = try #require(logged.first { $0.message == "retrying" }, "\(logged)")
        #expect(wait.level == .info && wait.metadata["manager"] == "m", "\(wait)")
        #expect(wait.metadata["wait"] == "1 s", "\(wait)")
        #expect(wait.metadata["reason"] == "status 429", "\(wait)")
    }

    @Test func aSpentRateLimitIsWaitedForAndLogged() async throws {
        let server = try TestServer()
        // One request per window: the first response leaves none, so the second request must wait
        // for the reset whatever the clock says. (With three, pacing could stretch past the
        // server's window and the limit was then never spent: a timing-dependent test.)
        try await server.post("/gh/_admin/config", #"{"rate_limit": 1, "rate_window": 1}"#)
        let logged = try await logged(
            """
            reform: 1
            services:
              github: { base_url: "${TEST_URL}/gh", retry: { attempts: 2, max: 5s } }
            managers:
              issues: { service: github, path: /repos/acme/widgets/issues, params: { state: all, per_page: 6 }, paging: { policy: link } }
            runs:
              default: { managers: [issues], output: { format: ndjson, path: /dev/null } }
            """, server: server)
        let waits = logged.filter { $0.message == "waiting for the rate limit to reset" }
        #expect(!waits.isEmpty, "\(logged.map(\.message))")
        #expect(waits.allSatisfy { $0.level == .info && $0.metadata["manager"] == "issues" && $0.metadata["wait"] != nil })
    }

    @Test func aRunLogsItsRetriesAndPageStopWithTheTokenRedacted() async throws {
        let server = try TestServer()
        let secret = "s3cret-token-value"
        let logged = try await logged(
            """
            reform: 1
            services:
              api:
                base_url: "${TEST_URL}"
                auth: { api_key: { query: token, value: "${API_TOKEN}" } }
                retry: { attempts: 3, base: 10ms, max: 1s }
            managers:
              m: { service: api, path: /flaky, params: { key: logged, fail: 2 }, records: items }
            runs:
              default: { managers: [m], output: { format: ndjson, path: /dev/null } }
            """, server: server, environment: ["API_TOKEN": secret])
        let retries = logged.filter { $0.message == "retrying" }
        #expect(retries.count == 2, "\(logged)")
        #expect(retries.allSatisfy { $0.level == .info && $0.metadata["reason"] == "status 503" && $0.metadata["manager"] == "m" })
        #expect(retries.map { $0.metadata["attempt"] } == ["1", "2"])
        let requests = logged.filter { $0.message == "request" }
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { $0.level == .debug && $0.metadata["request"]?.contains("token=***") == true }, "\(requests)")
        let stop = try #require(logged.first { $0.message == "paging stopped" })
        #expect(stop.level == .info && stop.metadata["manager"] == "m")
        for line in logged {
            #expect(!line.message.contains(secret) && !line.metadata.values.contains { $0.contains(secret) }, "\(line)")
        }
    }
}
