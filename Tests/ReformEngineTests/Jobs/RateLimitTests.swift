import Logging
import ReformEngine
import ReformEngineTesting
import ReformSDK
import Synchronization
import Testing

/// Rate limits as GitHub and the IETF draft report them: a spent limit is waited for (within
/// `retry.max`) or fails as `rate-limited` saying when it resets, never as bad credentials.
@Suite(.timeLimit(.minutes(10))) struct RateLimitTests {
    static func pipeline(retry: String) -> String {
        """
        reform: 1
        services:
          gh: { base_url: "http://gh.test"\(retry) }
        managers:
          issues:
            service: gh
            path: /issues
            params: { per_page: 2 }
            paging: { policy: page, param: page, stop: { short_page: per_page } }
        runs:
          default: { managers: [issues], output: { format: ndjson, path: out/issues.ndjson } }
        """
    }

    static let spent: [(String, String)] = [
        ("X-RateLimit-Limit", "60"), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Used", "60"), ("X-RateLimit-Reset", "1"),
    ]
    static let limited = ScriptedTransport.Answer.json(
        #"{"message": "API rate limit exceeded for 127.0.0.1."}"#, status: 403, headers: spent)

    @Test func aSpentLimitIsWaitedForAndThePagesGoOn() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(retry: ", retry: { attempts: 2, max: 5s }"))
        let transport = ScriptedTransport()
        transport.on("/issues", query: ["page": "1"], .json(#"[{"id": 1}, {"id": 2}]"#))
        // Two rate-limited answers in a row: waits are not attempts (attempts: 2 would allow one).
        transport.on("/issues", query: ["page": "2"], Self.limited)
        transport.on("/issues", query: ["page": "2"], Self.limited)
        transport.on("/issues", query: ["page": "2"], .json(#"[{"id": 3}]"#))
        let events = EventLog()
        let clock = VirtualClock()
        var options = RunOptions()
        options.onEvent = { events.add($0) }
        options.clock = clock
        let summary = try await harness.run("pipeline.yaml", options: options, transport: transport)
        #expect(summary.recordsIn == 3)
        #expect(clock.sleeps == [1.05, 1.05], "each waited for the reset, a moment past it: \(clock.sleeps)")
        #expect(events.all.contains { if case .rateLimited = $0 { true } else { false } })
        #expect(!events.all.contains { if case .credentialsRejected = $0 { true } else { false } })
    }

    @Test func aLimitThatResetsLaterThanTheRetryWaitsFailsAsRateLimited() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(retry: ""))
        let transport = ScriptedTransport()
        transport.on("/issues", query: ["page": "1"], Self.limited)
        do {
            _ = try await harness.run("pipeline.yaml", transport: transport)
            Issue.record("the run succeeded")
        } catch {
            #expect(error.managerError?.kind == .rateLimited)
            #expect(error.message.contains("rate limited: service 'gh' takes no more requests until"))
            #expect(error.message.contains("declare 'retry:"))
            #expect(!error.message.contains("credentials"))
        }
    }

    @Test(arguments: [
        [("RateLimit-Limit", "10"), ("RateLimit-Remaining", "0"), ("RateLimit-Reset", "1")],
        [("RateLimit", #""default";r=0;t=1"#), ("RateLimit-Policy", #""default";q=10;w=60"#)],
        [("RateLimit", "limit=10, remaining=0, reset=1")],
    ])
    func theIETFHeadersAreReadToo(headers: [(String, String)]) async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(retry: ", retry: { attempts: 2, max: 5s }"))
        let transport = ScriptedTransport()
        transport.on("/issues", query: ["page": "1"], .json(#"{"message": "slow down"}"#, status: 429, headers: headers))
        transport.on("/issues", query: ["page": "1"], .json(#"[{"id": 1}]"#))
        let clock = VirtualClock()
        var options = RunOptions()
        options.clock = clock
        let summary = try await harness.run("pipeline.yaml", options: options, transport: transport)
        #expect(summary.recordsIn == 1)
        #expect(clock.sleeps == [1.05], "waited for the reset the headers gave: \(clock.sleeps)")
    }

    @Test func pacingBeforeTheLimitWaitsEvenWithoutARetryPolicy() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(retry: ""))
        let transport = ScriptedTransport()
        // Two of forty left, the window resets in 3 s: the next request waits about a second.
        let low: [(String, String)] = [("X-RateLimit-Limit", "40"), ("X-RateLimit-Remaining", "2"), ("X-RateLimit-Reset", "3")]
        transport.on("/issues", query: ["page": "1"], .json(#"[{"id": 1}, {"id": 2}]"#, headers: low))
        transport.on("/issues", query: ["page": "2"], .json(#"[{"id": 3}]"#, headers: low))
        let clock = VirtualClock()
        var options = RunOptions()
        options.clock = clock
        let summary = try await harness.run("pipeline.yaml", options: options, transport: transport)
        #expect(summary.recordsIn == 3, "paced, not failed: requests remained")
        #expect(clock.sleeps == [1], "the two requests left spread over the 3 s left: \(clock.sleeps)")
    }

    @Test func aResetPastRetryMaxFailsWithoutAnnouncingAWait() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(retry: ", retry: { attempts: 2, max: 5s }"))
        let transport = ScriptedTransport()
        let far: [(String, String)] = [("X-RateLimit-Limit", "60"), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "100000")]
        transport.on("/issues", query: ["page": "1"], .json(#"{"message": "API rate limit exceeded"}"#, status: 403, headers: far))
        let events = EventLog()
        var options = RunOptions()
        options.onEvent = { events.add($0) }
        await #expect(throws: RunError.self) { try await harness.run("pipeline.yaml", options: options, transport: transport) }
        #expect(!events.all.contains { if case .rateLimited = $0 { true } else { false } }, "no 'waiting 100000 s' before failing")
    }

    @Test func pacingWaitsNoLongerThanRetryMaxAndIsNotAnnouncedAsTheLimitReached() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(retry: ", retry: { attempts: 2, max: 1s }"))
        let transport = ScriptedTransport()
        // One of forty left, the window resets in 60 s: pacing would wait 30 s; retry.max is 1 s.
        let low: [(String, String)] = [("X-RateLimit-Limit", "40"), ("X-RateLimit-Remaining", "1"), ("X-RateLimit-Reset", "60")]
        transport.on("/issues", query: ["page": "1"], .json(#"[{"id": 1}, {"id": 2}]"#, headers: low))
        transport.on("/issues", query: ["page": "2"], .json(#"[{"id": 3}]"#))
        let events = EventLog()
        let lines = LoggingTests.CapturingHandler.Lines()
        let clock = VirtualClock()
        var options = RunOptions()
        options.clock = clock
        options.onEvent = { events.add($0) }
        options.logger = Logger(label: "test") { _ in LoggingTests.CapturingHandler(lines: lines) }
        let summary = try await harness.run("pipeline.yaml", options: options, transport: transport)
        #expect(summary.recordsIn == 3)
        let waits = lines.all.filter { $0.message.hasPrefix("pacing") }.map { $0.metadata["wait"] }
        #expect(waits == ["1 s"], "\(waits)")
        #expect(clock.sleeps == [1])
        #expect(!events.all.contains { if case .rateLimited = $0 { true } else { false } })
    }

    @Test func aForbiddenAnswerWithoutRateLimitSignsStillBlamesTheCredentials() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(retry: ""))
        let transport = ScriptedTransport()
        transport.on("/issues", query: ["page": "1"], .json(#"{"message": "Bad credentials"}"#, status: 403))
        do {
            _ = try await harness.run("pipeline.yaml", transport: transport)
            Issue.record("the run succeeded")
        } catch {
            #expect(error.managerError?.kind == .credentialsRejected)
        }
    }
}

/// Service events seen by a run, in order.
final class EventLog: Sendable {
    private let events = Mutex<[ServiceEvent]>([])
    func add(_ event: ServiceEvent) { events.withLock { $0.append(event) } }
    var all: [ServiceEvent] { events.withLock { $0 } }
}

/// Error lines stay readable whatever an API sends (reliability audit round 2, L10).
@Suite(.timeLimit(.minutes(10))) struct LongErrorTextTests {
    @Test func aMegabyteCursorIsCutInTheErrorNotPrintedTwice() async throws {
        let harness = try RunHarness()
        try harness.write(
            "pipeline.yaml",
            """
            reform: 1
            services:
              gh: { base_url: "http://gh.test" }
            managers:
              items: { service: gh, path: /items, records: items, paging: { policy: cursor, param: after, token: next } }
            runs:
              default: { managers: [items], output: { format: ndjson, path: out/items.ndjson } }
            """)
        let cursor = String(repeating: "c", count: 1_000_000)
        let transport = ScriptedTransport()
        transport.on("/items", .json(#"{"items": [{"id": 1}], "next": "\#(cursor)"}"#))
        transport.on("/items", query: ["after": cursor], .json(#"{"message": "bad cursor"}"#, status: 500))
        do {
            _ = try await harness.run("pipeline.yaml", transport: transport)
            Issue.record("the run succeeded")
        } catch {
            #expect(error.description.utf8.count < 10_000, "\(error.description.utf8.count) bytes")
            #expect(error.description.contains("characters) …"))
        }
    }
}

/// Retries wait by the run's clock: a `Retry-After` exactly, backoff growing within `retry.max`
/// (a ``VirtualClock``, so no test sleeps).
@Suite(.timeLimit(.minutes(10))) struct RetryWaitTests {
    static func run(retry: String, answers: [ScriptedTransport.Answer]) async throws -> (VirtualClock, RunSummary) {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", RateLimitTests.pipeline(retry: ", retry: \(retry)"))
        let transport = ScriptedTransport()
        for answer in answers { transport.on("/issues", query: ["page": "1"], answer) }
        let clock = VirtualClock()
        var options = RunOptions()
        options.clock = clock
        let summary = try await harness.run("pipeline.yaml", options: options, transport: transport)
        return (clock, summary)
    }

    @Test func aRetryAfterInSecondsIsWaitedExactly() async throws {
        let busy = ScriptedTransport.Answer.json(#"{"message": "busy"}"#, status: 503, headers: [("Retry-After", "7")])
        let (clock, summary) = try await Self.run(retry: "{ attempts: 3, max: 10s }", answers: [busy, .json(#"[{"id": 1}]"#)])
        #expect(summary.recordsIn == 1)
        #expect(clock.sleeps == [7])
    }

    @Test func backoffGrowsAndStaysWithinRetryMax() async throws {
        let failing = ScriptedTransport.Answer.json(#"{"message": "oops"}"#, status: 503)
        let (clock, summary) = try await Self.run(
            retry: "{ attempts: 6, max: 3s }", answers: Array(repeating: failing, count: 5) + [.json(#"[{"id": 1}]"#)])
        #expect(summary.recordsIn == 1)
        // Doubling from the default base of 0.2 s, capped at retry.max; each wait is between half
        // its step and the step (jitter).
        let steps = [0.2, 0.4, 0.8, 1.6, 3]
        #expect(clock.sleeps.count == steps.count, "\(clock.sleeps)")
        for (wait, step) in zip(clock.sleeps, steps) { #expect(wait >= step / 2 && wait <= step, "\(clock.sleeps)") }
    }
}
