import ReformEngine
import ReformSDK
import Testing

/// Typed failures against the real server: each keeps what came back and says what to do.
@Suite(.timeLimit(.minutes(10))) struct LiveFailureTests {
    /// Loads one page of `path` from a fresh manager with `extra` manager lines; returns the error.
    func failure(_ path: String, _ extra: String = "", service extraService: String = "") async throws -> ManagerError {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service(extraService) + """

                managers:
                  m:
                    service: api
                    path: \(path)
                    \(extra)
                """)
        do {
            _ = try await server.manager("m", in: pipeline).load()
        } catch let error as ManagerError {
            return error
        }
        throw ServerStartError(output: "expected \(path) to fail")
    }

    @Test func anUnexpectedStatusKeepsStatusHeadersAndBody() async throws {
        let error = try await failure("/status?code=418")
        #expect(error.kind == .httpStatus)
        #expect(error.status == 418)
        #expect(error.headers.contains { $0.name.lowercased() == "x-request-id" && $0.value == "abc" })
        #expect(error.bodyExcerpt?.contains("status 418") == true)
        #expect(error.description.contains("expected 200"))
    }

    @Test func malformedAndTruncatedJSONAreInvalidBodiesWithTheirPosition() async throws {
        let malformed = try await failure("/malformed")
        #expect(malformed.kind == .invalidBody)
        #expect(malformed.message.contains("not valid JSON (line 1, column"))
        let truncated = try await failure("/truncated")
        #expect(truncated.kind == .invalidBody)
        #expect(truncated.message.contains("nothing of this page was landed"))
    }

    @Test func aWrongContentTypeIsAnInvalidBody() async throws {
        let html = try await failure("/html")
        #expect(html.kind == .invalidBody)
        let declared = try await failure("/paged/page", "expect: { content_type: application/xml }")
        #expect(declared.kind == .invalidBody)
        #expect(declared.message.contains("expected 'application/xml'"))
    }

    @Test func noContentIsItsOwnKindUnlessExpected() async throws {
        let error = try await failure("/no-content", "expect: { status: [200] }")
        #expect(error.kind == .httpStatus)
        let empty = try await failure("/no-content", "expect: { status: [200, 204], require: [x] }")
        #expect(empty.kind == .noContent)
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + "\nmanagers:\n  m: { service: api, path: /no-content, expect: { status: [204] } }")
        let landing = try await server.manager("m", in: pipeline).load()
        #expect(landing.records.isEmpty)
    }

    @Test func aTimeoutClosesTheConnectionAndSaysWhatToDo() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + "\nmanagers:\n  m: { service: api, path: /slow, params: { delay: 600, tag: t }, timeout: 300ms }")
        do {
            _ = try await server.manager("m", in: pipeline).load()
            Issue.record("expected a timeout")
        } catch let error as ManagerError {
            #expect(error.kind == .timeout)
            #expect(error.message.contains("timeout"))
        }
        // Waits for the server to log how the request ended. It answers only after 10 minutes if
        // the connection stays open: with 3 s, then 15 s, a machine busy with the rest of the
        // suite starved the client past the answer, and the test failed (docs/hardening.md,
        // "Tests and the concurrency pool").
        let end = try await server.waitForEnd(path: "/slow")
        #expect(end["client_closed"] == .bool(true), "the server saw the connection closed")
        #expect(try await server.requests(path: "/slow").count == 1)
    }

    @Test func aStalledBodyTimesOut() async throws {
        let error = try await failure("/stall", "params: { after: 10, seconds: 5 }\n    timeout: 400ms")
        #expect(error.kind == .timeout, "\(error)")
    }

    @Test func aResetMidBodyIsNoNetworkAndNothingLands() async throws {
        let error = try await failure("/reset", "params: { key: k, fail: 5 }")
        #expect(error.kind == .noNetwork)
        #expect(error.message.contains("nothing of"))
    }

    @Test func aRefusedConnectionIsNoNetworkAndAnEvent() async throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "p.yaml", "reform: 1\nservices:\n  api: { base_url: \"http://127.0.0.1:9\" }\nmanagers:\n  m: { service: api, path: /x }\n")
        let pipeline = try PipelineLoader(environment: [:]).load(path: path)
        let events = EventHub()
        let stream = events.events()
        let client = try ServiceClient(service: pipeline.services[0], environment: [:], events: events)
        let manager = APIManager(plan: pipeline.managers[0], client: client)
        do {
            _ = try await manager.load()
            Issue.record("expected no network")
        } catch {
            #expect(error.kind == .noNetwork)
            #expect(error.message.contains("refused"))
        }
        var iterator = stream.makeAsyncIterator()
        let event = await iterator.next()
        guard case .unreachable(let service, let name, _)? = event else {
            Issue.record("expected an unreachable event, got \(String(describing: event))")
            return
        }
        #expect(service == "api" && name == "m")
    }

    @Test func anUnknownEnvironmentIsAConfigurationError() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(
            "p.yaml",
            "reform: 1\nservices:\n  api: { base_url: { default: \"http://a\", release: \"https://b\" } }\n"
                + "managers:\n  m: { service: api, path: /x }\n")
        let pipeline = try PipelineLoader(environment: [:]).load(path: path)
        #expect(throws: ManagerError.self) { try ServiceClient(service: pipeline.services[0], environment: [:], env: "staging") }
        do { _ = try ServiceClient(service: pipeline.services[0], environment: [:], env: "staging") } catch {
            #expect(error.message.contains("it has: default, release"))
        }
    }
}
