import ReformEngine
import ReformSDK
import Testing

/// Retries on 429, 5xx, timeouts and resets, against the real server.
@Suite(.timeLimit(.minutes(10))) struct LiveRetryTests {
    let retry = "retry: { attempts: 3, base: 10ms, max: 2s }"

    @Test func a503IsRetriedUntilItSucceeds() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service(retry) + "\nmanagers:\n  m: { service: api, path: /flaky, params: { key: a, fail: 2 }, records: items }")
        let landing = try await server.manager("m", in: pipeline).load()
        #expect(landing.records.count == 5)
        #expect(try await server.requests(path: "/flaky").count == 3)
    }

    @Test func retriesStopAtTheAttemptsAndSaySo() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service(retry) + "\nmanagers:\n  m: { service: api, path: /flaky, params: { key: b, fail: 9, status: 502 } }")
        do {
            _ = try await server.manager("m", in: pipeline).load()
            Issue.record("expected failure")
        } catch let error as ManagerError {
            #expect(error.kind == .httpStatus)
            #expect(error.status == 502)
            #expect(error.message.contains("after 3 attempts"))
        }
        #expect(try await server.requests(path: "/flaky").count == 3)
    }

    @Test(arguments: ["0", "1"]) func retryAfterIsHonouredInSecondsAndAsADate(date: String) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service(retry)
                + "\nmanagers:\n  m: { service: api, path: /ratelimited, params: { key: c, fail: 1, retry_after: 1, date: \(date) }, records: items }"
        )
        let events = EventHub()
        let stream = events.events()
        let started = ContinuousClock.now
        let landing = try await server.manager("m", in: pipeline, events: events).load()
        #expect(!landing.records.isEmpty)
        #expect(ContinuousClock.now - started >= .milliseconds(date == "1" ? 0 : 900), "waited for Retry-After")
        var iterator = stream.makeAsyncIterator()
        guard case .rateLimited(_, _, let after)? = await iterator.next() else {
            Issue.record("expected a rate-limited event")
            return
        }
        #expect(after != nil)
    }

    @Test func aRetryAfterLongerThanTheMaximumFailsAtOnce() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service(retry) + "\nmanagers:\n  m: { service: api, path: /ratelimited, params: { key: d, fail: 1, retry_after: 60 } }")
        do {
            _ = try await server.manager("m", in: pipeline).load()
            Issue.record("expected failure")
        } catch let error as ManagerError {
            #expect(error.status == 429)
            #expect(error.message.contains("Retry-After"))
        }
        #expect(try await server.requests(path: "/ratelimited").count == 1)
    }

    @Test func resetsAndTimeoutsAreRetried() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service(retry) + "\nmanagers:\n  m: { service: api, path: /reset, params: { key: e, fail: 2 }, records: items }")
        let landing = try await server.manager("m", in: pipeline).load()
        #expect(!landing.records.isEmpty)
        #expect(try await server.requests(path: "/reset").count == 3)
    }

    @Test func aNonIdempotentMethodIsNotRetriedUnlessListed() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service(retry) + """

                managers:
                  post: { service: api, method: POST, path: /flaky, params: { key: f, fail: 1 } }
                  allowed:
                    service: api
                    method: POST
                    path: /flaky
                    params: { key: g, fail: 1 }
                    records: items
                    retry: { attempts: 2, base: 10ms, methods: [POST] }
                """)
        do {
            _ = try await server.manager("post", in: pipeline).load()
            Issue.record("expected failure")
        } catch let error as ManagerError {
            #expect(error.message.contains("not idempotent"))
        }
        #expect(try await server.manager("allowed", in: pipeline).load().records.count == 5)
    }

    @Test func backoffGrowsExponentiallyWithJitterAndIsCapped() {
        let plan = RetryPlan(attempts: 6, backoff: .exponential, base: 0.1, max: 0.5)
        #expect(plan.backoff(beforeAttempt: 2, random: 1) == 0.1)
        #expect(plan.backoff(beforeAttempt: 3, random: 1) == 0.2)
        #expect(plan.backoff(beforeAttempt: 4, random: 0) == 0.2)
        #expect(plan.backoff(beforeAttempt: 6, random: 1) == 0.5)
        #expect(RetryPlan(attempts: 3, backoff: .constant, base: 0.3).backoff(beforeAttempt: 3, random: 1) == 0.3)
    }

    @Test func budgetsStopAManagerWithAClearError() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service(retry) + """

                managers:
                  pages:
                    service: api
                    path: /paged/page
                    params: { per_page: 5, total: 40 }
                    records: data.items
                    paging: { policy: page, param: page }
                    budget: { max_pages: 3 }
                  calls:
                    service: api
                    path: /flaky
                    params: { key: h, fail: 5 }
                    budget: { max_calls: 2 }
                """)
        do {
            _ = try await server.manager("pages", in: pipeline).loadAll()
            Issue.record("expected the page budget to run out")
        } catch let error as ManagerError {
            #expect(error.kind == .budgetExceeded)
            #expect(error.message.contains("budget of 3 pages"))
        }
        do {
            _ = try await server.manager("calls", in: pipeline).load()
            Issue.record("expected the call budget to run out")
        } catch let error as ManagerError {
            #expect(error.kind == .budgetExceeded)
        }
        #expect(try await server.requests(path: "/flaky").count == 2)
    }
}
