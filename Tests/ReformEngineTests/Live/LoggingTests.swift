import Foundation
import Logging
import ReformEngine
import ReformSDK
import Testing

/// The `Logger` a run is handed hears of requests, retries and page stops, with secrets redacted,
/// against the real loopback server.
@Suite struct LoggingTests {
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

    @Test func aRunLogsItsRetriesAndPageStopWithTheTokenRedacted() async throws {
        let server = try TestServer()
        let secret = "s3cret-token-value"
        let pipeline = try server.pipeline(
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
            """)
        let lines = CapturingHandler.Lines()
        var options = RunOptions()
        options.mode = .live
        options.environment = ["TEST_URL": server.url, "API_TOKEN": secret]
        var logger = Logger(label: "test") { _ in CapturingHandler(lines: lines) }
        logger.logLevel = .debug
        options.logger = logger
        _ = try await Runner(pipeline: pipeline, options: options).run()

        let logged = lines.all
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
