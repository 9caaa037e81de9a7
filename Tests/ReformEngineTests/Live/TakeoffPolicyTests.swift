import ReformEngine
import ReformSDK
import Synchronization
import Testing

/// A consumer that remembers what landed on it.
final class Consumer: ManagerDelegate {
    let landings = Mutex<[Landing]>([])
    let failures = Mutex<[ManagerError]>([])

    func manager(_ manager: APIManager, didLand landing: Landing) { landings.withLock { $0.append(landing) } }
    func manager(_ manager: APIManager, didFail error: ManagerError) { failures.withLock { $0.append(error) } }

    var tags: [String] {
        landings.withLock { list in
            list.compactMap { landing in
                if case .object(let o)? = landing.records.first, case .string(let tag)? = o["tag"] { tag } else { nil }
            }
        }
    }
}

/// The takeoff policies and the disappearing landing point (seeds/004, reasons 1 and 3), shown
/// against a slow endpoint of the real server: a released manager's connection is closed.
/// (`cancel-in-flight` is shown with a held response, in ``TakeoffHoldTests``.)
@Suite(.timeLimit(.minutes(10))) struct TakeoffPolicyTests {
    func slowManager(_ server: TestServer, takeoff: String, delay: Int = 1) throws -> (APIManager, Consumer) {
        let pipeline = try server.pipeline(
            service()
                + "\nmanagers:\n  slow: { service: api, path: /slow, params: { delay: \(delay), tag: { default: a } }, takeoff: \(takeoff), timeout: 120s }"
        )
        let manager = try server.manager("slow", in: pipeline)
        let consumer = Consumer()
        manager.delegate = consumer
        return (manager, consumer)
    }

    /// The second load must start while the first is in flight: the first takes 20 s (with 5 s,
    /// the whole suite once starved this test's tasks past the first response while a plugin
    /// built beside it, and a second request went out after the first landed). The suite runs
    /// beside longer ones, so the wait adds little to `swift test`.
    @Test func ignoreNewSendsExactlyOneRequest() async throws {
        let server = try TestServer()
        let (manager, consumer) = try slowManager(server, takeoff: "ignore-new", delay: 20)
        async let first = manager.load()
        try await server.waitForRequest(path: "/slow")
        async let second = manager.load()
        let (a, b) = try await (first, second)
        #expect(a.page == 1 && b.page == 1)
        #expect(try await server.requests(path: "/slow").count == 1, "the server received one request")
        #expect(consumer.landings.withLock { $0.count } == 1)
    }

    @Test func parallelSendsBoth() async throws {
        let server = try TestServer()
        let (manager, consumer) = try slowManager(server, takeoff: "parallel")
        async let first = manager.load()
        async let second = manager.load()
        _ = try await (first, second)
        #expect(try await server.requests(path: "/slow").count == 2)
        #expect(consumer.landings.withLock { $0.count } == 2)
    }

    @Test func releasingTheManagerCancelsItsRequestAndNothingLands() async throws {
        let server = try TestServer()
        let consumer = Consumer()
        do {
            // Long enough that the request is still in flight on a loaded machine (CI runs the
            // suites side by side on two cores); the release cancels it long before.
            let (manager, _) = try slowManager(server, takeoff: "parallel", delay: 60)
            manager.delegate = consumer
            try manager.start()
            try await server.waitForRequest(path: "/slow")
            #expect(manager.requestsInFlight == 1)
        }
        let entry = try await server.waitForEnd(path: "/slow")
        #expect(entry["client_closed"] == .bool(true), "the server saw the request closed")
        #expect(try await server.requests(path: "/slow").count == 1)
        #expect(consumer.landings.withLock { $0.isEmpty } && consumer.failures.withLock { $0.isEmpty })
    }

    @Test func aConsumerThatGoesAwayIsNotCalled() async throws {
        let server = try TestServer()
        let (manager, _) = try slowManager(server, takeoff: "parallel")
        weak var gone: Consumer?
        do {
            let consumer = Consumer()
            gone = consumer
            manager.delegate = consumer
            try manager.start()
        }
        #expect(gone == nil, "the delegate is held weakly")
        let landing = try await manager.load()
        #expect(landing.page == 1)
    }

    @Test func cancellingTheCallerCancelsTheRequest() async throws {
        let server = try TestServer()
        let (manager, _) = try slowManager(server, takeoff: "parallel", delay: 60)
        let caller = Task { try await manager.load() }
        try await server.waitForRequest(path: "/slow")
        caller.cancel()
        let result = await caller.result
        guard case .failure(let error as ManagerError) = result else {
            Issue.record("expected cancelled, got \(result)")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(try await server.waitForEnd(path: "/slow")["client_closed"] == .bool(true))
    }
}
