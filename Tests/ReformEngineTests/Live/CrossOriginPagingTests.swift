import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// Credentials never follow a next page, or a saved resume request, to another origin, and the
/// state file holds no secret (reliability audit round 2: M1, M2, M3, L15).
@Suite(.timeLimit(.minutes(10))) struct CrossOriginPagingTests {
    static func pipeline(baseURL: String = "http://gh.test", paging: String = "{ policy: link }") -> String {
        """
        reform: 1
        name: cross
        services:
          gh:
            base_url: "\(baseURL)"
            auth: { api_key: { query: api_key, value: "${GH_KEY}" } }
            headers: { X-Secret: "${GH_SECRET}" }
        managers:
          a:
            service: gh
            path: /a
            paging: \(paging)
            incremental: { cursor: t, param: since, format: number, key: id, checkpoint: 1 }
        runs:
          default: { managers: [a], output: { format: ndjson, path: out/a.ndjson } }
        """
    }

    static let environment = ["GH_KEY": "key-9f8e7d", "GH_SECRET": "secret-1a2b3c"]

    @Test(arguments: [
        ("http://evil.test/a?page=2", "http://evil.test"),
        ("http://gh.test:8080/a?page=2", "http://gh.test:8080"),
        ("http://user:pw@gh.test/a?page=2", "http://user:pw@gh.test"),
        ("https://gh.test/a?page=2", "https://gh.test"),
        ("//evil.test/a?page=2", "http://evil.test"),
    ])
    func aNextPageOnAnotherOriginIsNotSent(link: String, origin: String) async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline())
        let transport = ScriptedTransport()
        transport.on("/a", .json(#"[{"id": 1, "t": 1}]"#, headers: [("Link", "<\(link)>; rel=\"next\"")]))
        do {
            _ = try await harness.run("pipeline.yaml", transport: transport, environment: Self.environment)
            Issue.record("the run followed \(link)")
        } catch {
            #expect(error.managerError?.kind == .otherOrigin)
            #expect(error.message.contains("the next page is on \(origin), another origin than the service's http://gh.test"))
        }
        #expect(transport.requests.count == 1, "only the first page went out: \(transport.requestKeys)")
    }

    @Test func aNextURLInTheBodyOnAnotherOriginIsNotSentEither() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline(paging: "{ policy: next-url, token: next }\n    records: items"))
        let transport = ScriptedTransport()
        transport.on("/a", .json(#"{"items": [{"id": 1, "t": 1}], "next": "http://localhost/a?page=2"}"#))
        await #expect(throws: RunError.self) {
            try await harness.run("pipeline.yaml", transport: transport, environment: Self.environment)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aNextPageOnTheSameOriginWrittenAnotherWayIsFollowed() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline())
        let transport = ScriptedTransport()
        transport.on(
            "/a", query: ["api_key": "key-9f8e7d"],
            .json(#"[{"id": 1, "t": 1}]"#, headers: [("Link", #"<HTTP://GH.test:80/a?page=2>; rel="next""#)]))
        transport.on("/a", query: ["page": "2"], .json(#"[{"id": 2, "t": 2}]"#, headers: [("Link", #"<//gh.test/a?page=3>; rel="next""#)]))
        transport.on("/a", query: ["page": "3"], .json("[]"))
        let summary = try await harness.run("pipeline.yaml", transport: transport, environment: Self.environment)
        #expect(summary.written.first?.count == 2)
        #expect(transport.requests.map(\.path) == ["/a", "/a", "/a"], "a network-path link is a path on its host, not //gh.test/a")
    }

    @Test func theStateFileHoldsNoSecretAndAResumeGoesOnlyToTheServicesOrigin() async throws {
        let harness = try RunHarness()
        try harness.write("pipeline.yaml", Self.pipeline())
        let failing = ScriptedTransport()
        // The server echoes the key into its next link, as GitHub does with a query key.
        failing.on(
            "/a", query: ["api_key": "key-9f8e7d"],
            .json(#"[{"id": 1, "t": 1}]"#, headers: [("Link", #"<http://gh.test/a?page=2&api_key=key-9f8e7d>; rel="next""#)]))
        failing.on("/a", query: ["page": "2"], .json(#"{"message": "down"}"#, status: 503))
        await #expect(throws: RunError.self) {
            try await harness.run("pipeline.yaml", transport: failing, environment: Self.environment)
        }
        let state = try harness.read("out/.cross.reform-state.json")
        #expect(state.contains("\"resume\""), "the failed run left a checkpoint to resume from")
        #expect(!state.contains("key-9f8e7d"))
        #expect(!state.contains("secret-1a2b3c"))

        // base_url changed since: the saved origin is not the service's any more.
        try harness.write("pipeline.yaml", Self.pipeline(baseURL: "http://other.test"))
        let moved = ScriptedTransport()
        do {
            _ = try await harness.run("pipeline.yaml", transport: moved, environment: Self.environment)
            Issue.record("the run resumed on the old origin")
        } catch {
            #expect(
                error.message.contains("resumes manager 'a' on http://gh.test, which is not the origin of service 'gh' (http://other.test)")
            )
            #expect(error.message.contains("Run with --full-refresh to start again"))
        }
        #expect(moved.requests.isEmpty)

        // Back on its origin, it resumes, the client adding the key once.
        try harness.write("pipeline.yaml", Self.pipeline())
        let resumed = ScriptedTransport()
        resumed.on("/a", query: ["page": "2"], .json(#"[{"id": 2, "t": 2}]"#))
        _ = try await harness.run("pipeline.yaml", transport: resumed, environment: Self.environment)
        #expect(resumed.requests.count == 1)
        #expect(resumed.requests.first?.query.filter { $0.name == "api_key" }.map(\.value) == ["key-9f8e7d"])
        #expect(try harness.lines("out/a.ndjson") == [#"{"id":1,"t":1}"#, #"{"id":2,"t":2}"#])
    }
}
