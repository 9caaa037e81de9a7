import ReformEngine
import ReformSDK
import Synchronization
import Testing

/// Credentials (static and OAuth2 with refresh), interceptors and the response cache, against the
/// real server.
@Suite(.timeLimit(.minutes(10))) struct AuthAndInterceptorTests {
    @Test func basicBearerAndAPIKeysAreSentFromTheEnvironment() async throws {
        let server = try TestServer()
        let environment = ["USER": "reform", "PASS": "s3cret", "KEY": "k-123"]
        let basic = try server.pipeline(
            service("auth: { basic: { user: \"${USER}\", password: \"${PASS}\" } }")
                + "\nmanagers:\n  m: { service: api, path: /auth/basic, records: items }", environment: environment)
        #expect(try await server.manager("m", in: basic, environment: environment).load().records.count > 0)
        let header = try server.pipeline(
            service("auth: { api_key: { header: X-API-Key, value: \"${KEY}\" } }")
                + "\nmanagers:\n  m: { service: api, path: /auth/key }", environment: environment)
        #expect(try await server.manager("m", in: header, environment: environment).load().response.status == 200)
        let query = try server.pipeline(
            service("auth: { api_key: { query: api_key, value: \"${KEY}\" } }")
                + "\nmanagers:\n  m: { service: api, path: /auth/key }", environment: environment)
        let landing = try await server.manager("m", in: query, environment: environment).load()
        #expect(!landing.request.matchKey.contains("k-123"), "the landing keeps the request without the credential")
        let wrong = try await server.manager("m", in: query, environment: ["KEY": "nope"])
        do {
            _ = try await wrong.load()
            Issue.record("expected the key to be rejected")
        } catch {
            #expect(error.kind == .credentialsRejected)
            #expect(!error.description.contains("nope"))
        }
    }

    @Test func anExpiredTokenIsRefreshedOnceAndSharedByConcurrentRequests() async throws {
        let server = try TestServer()
        let environment = ["CLIENT_SECRET": "s3cret"]
        let pipeline = try server.pipeline(
            service(
                """
                auth:
                  oauth2: { token_url: "/oauth/token?delay=0.3", client_id: reform, client_secret: "${CLIENT_SECRET}" }
                """)
                + "\nmanagers:\n  m: { service: api, path: /oauth/items, records: items }", environment: environment)
        let events = EventHub()
        let stream = events.events()
        let manager = try server.manager("m", in: pipeline, environment: environment, events: events)
        _ = try await manager.load()
        #expect(try await server.requests(path: "/oauth/token").count == 1)
        var expire = HTTPRequest(method: "POST", path: "/_admin/expire")
        expire.baseURL = server.url
        _ = try await LiveTransport().send(expire, for: ManagerRef(index: 0, name: "test"))
        let client = manager.client
        let plan = manager.plan
        async let a = APIManager(plan: plan, client: client).load()
        async let b = APIManager(plan: plan, client: client).load()
        async let c = APIManager(plan: plan, client: client).load()
        let pages = try await [a, b, c]
        #expect(pages.allSatisfy { !$0.records.isEmpty })
        #expect(try await server.requests(path: "/oauth/token").count == 2, "one refresh for three rejected requests")
        var kinds: [String] = []
        for await event in stream {
            kinds.append("\(event)")
            if kinds.count >= 3 { break }
        }
        #expect(kinds.contains { $0.contains("tokenRefreshed") })
        #expect(kinds.contains { $0.contains("credentialsRejected") })
    }

    @Test func badClientCredentialsAreACredentialsError() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service("auth: { oauth2: { token_url: /oauth/token, client_id: reform, client_secret: wrong } }")
                + "\nmanagers:\n  m: { service: api, path: /oauth/items }")
        let manager = try server.manager("m", in: pipeline)
        do {
            _ = try await manager.load()
            Issue.record("expected a credentials error")
        } catch {
            #expect(error.kind == .credentialsRejected)
            #expect(error.message.contains("client_id, client_secret"))
        }
    }

    /// Records every hook it sees, in order; vetoes calls to `/echo?veto=1`.
    final class Recorder: Interceptor {
        let hooks = Mutex<[String]>([])
        func note(_ hook: String) { hooks.withLock { $0.append(hook) } }
        func shouldCall(_ request: HTTPRequest, context: CallContext) async -> Bool {
            note("shouldCall")
            return !request.query.contains(QueryItem(name: "veto", value: "1"))
        }
        func adapt(_ request: HTTPRequest, context: CallContext) async throws(ManagerError) -> HTTPRequest {
            note("adapt")
            var adapted = request
            adapted.setHeader("X-Signed", "sig-\(request.path)")
            return adapted
        }
        func afterCall(_ request: HTTPRequest, result: Result<HTTPResponse, TransportError>, seconds: Double, context: CallContext) async {
            note("afterCall")
        }
        func retryDecision(_ proposal: RetryDecision, context: CallContext) async -> RetryDecision {
            note("retryDecision")
            var decision = proposal
            decision.retry = false
            return decision
        }
        func beforeSuccess(_ landing: Landing) async { note("beforeSuccess") }
        func afterSuccess(_ landing: Landing) async { note("afterSuccess") }
        func beforeFailure(_ error: ManagerError, manager: ManagerRef) async { note("beforeFailure") }
        func afterFailure(_ error: ManagerError, manager: ManagerRef) async { note("afterFailure") }
    }

    @Test func interceptorsSeeEveryHookInOrderAndCanAdaptVetoAndRetry() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service("retry: { attempts: 2, base: 5s }") + """

                managers:
                  echo: { service: api, path: /echo, params: { veto: { default: 0 } }, interceptors: [{ headers: { X-Manager: echo } }] }
                  flaky: { service: api, path: /flaky, params: { key: i, fail: 1 }, records: items }
                """)
        let recorder = Recorder()
        let landing = try await server.manager("echo", in: pipeline, interceptors: [recorder]).load()
        guard case .object(let echoed)? = landing.records.first, case .object(let headers)? = echoed["headers"] else {
            Issue.record("no echo")
            return
        }
        #expect(headers["x-signed"] == .string("sig-/echo"))
        #expect(headers["x-manager"] == .string("echo"))
        #expect(recorder.hooks.withLock { $0 } == ["shouldCall", "adapt", "afterCall", "beforeSuccess", "afterSuccess"])

        let vetoing = Recorder()
        let vetoed = try server.manager("echo", in: pipeline, params: ["veto": .int(1)], interceptors: [vetoing])
        do {
            _ = try await vetoed.load()
            Issue.record("expected a veto")
        } catch {
            #expect(error.kind == .vetoed)
        }
        #expect(vetoing.hooks.withLock { $0 } == ["shouldCall", "beforeFailure", "afterFailure"])

        let deciding = Recorder()
        let flaky = try server.manager("flaky", in: pipeline, interceptors: [deciding])
        do {
            _ = try await flaky.load()
            Issue.record("the interceptor should have stopped the retry")
        } catch {
            #expect(error.message.contains("an interceptor decided not to retry"))
        }
        #expect(deciding.hooks.withLock { $0.filter { $0 == "retryDecision" }.count } == 1)
        #expect(try await server.requests(path: "/flaky").count == 1, "the policy's retry was overridden")
    }

    @Test func aRateLimitSpacesCalls() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service("interceptors: [{ rate_limit: 20 }]")
                + "\nmanagers:\n  m: { service: api, path: /paged/page, params: { per_page: 1, total: 6 }, records: data.items, paging: { policy: page, param: page } }"
        )
        let started = ContinuousClock.now
        let (records, _, _) = try await server.manager("m", in: pipeline).loadAll()
        #expect(records.count == 6)
        #expect(ContinuousClock.now - started >= .milliseconds(290), "7 calls at 20 per second take at least 0.3 s")
    }

    @Test func aCachedLandingIsMarkedAndSendsNothing() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + "\nmanagers:\n  m: { service: api, path: /paged/offset, params: { limit: 3 }, records: items, cache: { ttl: 60s } }"
        )
        let cache = ResponseCache()
        let first = try await server.manager("m", in: pipeline, cache: cache).load()
        let second = try await server.manager("m", in: pipeline, cache: cache).load()
        #expect(!first.cached)
        #expect(second.cached)
        #expect(first.records == second.records)
        #expect(try await server.requests(path: "/paged/offset").count == 1)
    }
}
