import ReformEngine
import ReformEngineTesting
import ReformSDK
import Synchronization
import Testing

/// The takeoff policies (seeds/004) with a response held in flight by the scripted transport
/// rather than a slow server: `cancel-in-flight` and `parallel` in milliseconds. (`ignore-new`
/// stays with ``TakeoffPolicyTests`` and the real server: a second load joining the flight in
/// the air shows nothing a test could wait for before the release.)
@Suite(.timeLimit(.minutes(10))) struct TakeoffHoldTests {
    static func manager(takeoff: String, transport: ScriptedTransport) throws -> (APIManager, Consumer) {
        let harness = try RunHarness()
        try harness.write(
            "pipeline.yaml",
            """
            reform: 1
            services:
              api: { base_url: "http://api.test" }
            managers:
              slow: { service: api, path: /slow, params: { tag: { default: a } }, takeoff: \(takeoff) }
            """)
        let pipeline = try harness.load("pipeline.yaml")
        let plan = try #require(pipeline.managers.first)
        let service = try #require(pipeline.services.first)
        let manager = APIManager(plan: plan, client: try ServiceClient(service: service, environment: [:], transport: transport))
        let consumer = Consumer()
        manager.delegate = consumer
        return (manager, consumer)
    }

    static func scripted(_ tags: String...) -> ScriptedTransport {
        let transport = ScriptedTransport()
        for tag in tags { transport.on("/slow", .json(#"[{"tag": "\#(tag)"}]"#)) }
        return transport
    }

    @Test func cancelInFlightCancelsTheFirstAndOnlyTheSecondLands() async throws {
        let transport = Self.scripted("second")
        let hold = transport.hold("/slow")
        let (manager, consumer) = try Self.manager(takeoff: "cancel-in-flight", transport: transport)
        let first = Task { try await manager.load() }
        await hold.waitForRequests(1)
        let second = Task { try await manager.load() }
        await hold.waitForRequests(2)
        hold.release()
        let firstResult = await first.result
        guard case .failure(let error as ManagerError) = firstResult else {
            Issue.record("the first request should have been cancelled, got \(firstResult)")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(try await second.value.page == 1)
        #expect(hold.cancelled == 1, "the first request was cancelled in flight")
        #expect(transport.requests.count == 2)
        #expect(consumer.tags == ["second"], "only the second result landed")
        #expect(consumer.failures.withLock { $0.count } == 0, "a cancelled request is not reported as a failure")
    }

    @Test func parallelSendsBoth() async throws {
        let transport = Self.scripted("a", "b")
        let hold = transport.hold("/slow")
        let (manager, consumer) = try Self.manager(takeoff: "parallel", transport: transport)
        let first = Task { try await manager.load() }
        let second = Task { try await manager.load() }
        await hold.waitForRequests(2)
        hold.release()
        _ = try await (first.value, second.value)
        #expect(consumer.landings.withLock { $0.count } == 2)
        #expect(hold.cancelled == 0)
    }
}
