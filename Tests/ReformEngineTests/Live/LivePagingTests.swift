import ReformEngine
import ReformSDK
import Testing

/// Every paging style against the real loopback server: all records land, in order, once, and
/// paging stops for the documented reason.
@Suite(.timeLimit(.minutes(10))) struct LivePagingTests {
    func ids(_ records: [Value]) -> [Int] {
        records.compactMap { if case .object(let o) = $0, case .int(let id)? = o["id"] { id } else { nil } }
    }

    @Test(arguments: [
        ("/paged/page", "records: data.items\n    paging: { policy: page, param: page, stop: { short_page: per_page } }", "per_page"),
        (
            "/paged/offset",
            "records: items\n    paging: { policy: offset, param: offset, start: 0, stop: [empty_page, short_page], size_param: limit }",
            "limit"
        ),
        ("/paged/cursor", "records: items\n    paging: { policy: cursor, param: cursor, token: next_cursor }", "limit"),
        ("/paged/cursor-header", "paging: { policy: cursor, param: cursor, header: X-Next-Cursor }", "limit"),
        ("/paged/link", "paging: { policy: link }", "per_page"),
        ("/paged/next-url", "records: results\n    paging: { policy: next-url, token: next }", "per_page"),
    ])
    func everyPagingStyleLandsEveryRecordOnce(path: String, paging: String, sizeParam: String) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + """

                managers:
                  items:
                    service: api
                    path: \(path)
                    params: { \(sizeParam): { type: int, default: 7 }, total: { type: int, default: 23 } }
                    \(paging)
                """)
        let manager = try server.manager("items", in: pipeline)
        let (records, pages, _) = try await manager.loadAll()
        #expect(ids(records) == Array(1...23))
        #expect(pages >= 4)
        let log = try await server.requests(path: path)
        #expect(log.count == pages)
        // The client keeps an idle connection for 30 s (HTTP1Pool): a page asked for after a longer
        // wait (a test process starved of threads by the rest of the suite) may open a new one.
        let arrivals = log.map { $0["at"]?.doubleValue ?? 0 }
        let longWaits = zip(arrivals, arrivals.dropFirst()).filter { $1 - $0 >= 25 }.count
        #expect(Set(log.map { $0["connection"] }).count <= 1 + longWaits, "pages reuse one keep-alive connection")
    }

    @Test("flights that fetch the same next page at once (parallel takeoff) are not taken for a paging loop")
    func parallelFlightsOfOnePageAreNotALoop() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + """

                managers:
                  items:
                    service: api
                    path: /paged/page
                    params: { per_page: 5, total: 30 }
                    records: data.items
                    takeoff: parallel
                    paging: { policy: page, param: page, stop: { short_page: per_page } }
                """)
        let manager = try server.manager("items", in: pipeline)
        _ = try await manager.load()
        // Both flights start from page 1's state: each fetches page 2 and decides on page 3.
        async let first = manager.loadNextPage()
        async let second = manager.loadNextPage()
        let (a, b) = try await (first, second)
        #expect(a?.page == 2 && b?.page == 2)
        var pages = [2]
        while let landing = try await manager.loadNextPage() { pages.append(landing.page) }
        #expect(pages == [2, 3, 4, 5, 6, 7])
    }

    @Test func aFreshLoadResetsPaging() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + """

                managers:
                  items:
                    service: api
                    path: /paged/page
                    params: { per_page: 10, total: 25 }
                    records: data.items
                    paging: { policy: page, param: page, stop: { short_page: per_page } }
                """)
        let manager = try server.manager("items", in: pipeline)
        let first = try await manager.load()
        let second = try #require(try await manager.loadNextPage())
        #expect(ids(first.records) == Array(1...10))
        #expect(ids(second.records) == Array(11...20))
        let again = try await manager.load()
        #expect(again.page == 1)
        #expect(ids(again.records) == Array(1...10))
        _ = try await manager.loadNextPage()
        let last = try #require(try await manager.loadNextPage())
        #expect(last.isLast)
        #expect(last.stopReason == StopReason(.shortPage, records: 5, limit: 10))
        #expect(last.stopReason?.description == "short page (5 < 10)")
        #expect(try await manager.loadNextPage() == nil)
    }

    @Test func aLoopingCursorIsAClearErrorNotAHang() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + """

                managers:
                  loop:
                    service: api
                    path: /paged/loop
                    records: items
                    paging: { policy: cursor, param: cursor, token: next_cursor }
                """)
        let manager = try server.manager("loop", in: pipeline)
        await #expect(throws: ManagerError.self) {
            _ = try await manager.loadAll()
        }
        do {
            _ = try await manager.loadAll()
        } catch let error as ManagerError {
            #expect(error.kind == .pagingLoop)
            #expect(error.description.contains("cursor=same"))
        }
        #expect(try await server.requests(path: "/paged/loop").count == 4)
    }

    @Test func anEmptyPageEndsPaging() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + """

                managers:
                  empty:
                    service: api
                    path: /paged/empty
                    records: items
                    paging: { policy: page, param: page }
                """)
        let landing = try await server.manager("empty", in: pipeline).load()
        #expect(landing.records.isEmpty)
        #expect(landing.isLast)
        #expect(landing.stopReason?.kind == .emptyPage)
    }

    @Test func pathTemplatesAndBodiesComeFromParams() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + """

                managers:
                  create:
                    service: api
                    method: POST
                    path: /echo
                    params: { name: { required: true }, count: { type: int, default: 3 } }
                    body: json
                  form:
                    service: api
                    method: PUT
                    path: /echo
                    params: { name: { required: true }, note: { default: "a b&c" } }
                    body: form
                """)
        let json = try await server.manager("create", in: pipeline, params: ["name": .string("雪")]).load()
        let form = try await server.manager("form", in: pipeline, params: ["name": .string("x")]).load()
        guard case .object(let echoed) = try #require(json.records.first), case .object(let formEcho) = try #require(form.records.first)
        else {
            Issue.record("not objects")
            return
        }
        #expect(echoed["method"] == .string("POST"))
        #expect(echoed["body"] == .string(#"{"name":"雪","count":3}"#))
        #expect(formEcho["body"] == .string("name=x&note=a%20b%26c"))
        guard case .object(let headers)? = formEcho["headers"] else {
            Issue.record("no headers")
            return
        }
        #expect(headers["content-type"] == .string("application/x-www-form-urlencoded"))
    }

    @Test func parametersAreCheckedBeforeTakeoff() async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            service() + """

                managers:
                  items:
                    service: api
                    path: /paged/page
                    params:
                      city: { required: true, pattern: "^[a-z]+$" }
                      per_page: { type: int, min: 1, max: 50, default: 10 }
                """)
        let manager = try server.manager("items", in: pipeline, params: ["city": .string("Shanghai"), "per_page": .int(500)])
        do {
            _ = try await manager.load()
            Issue.record("expected invalid params")
        } catch {
            #expect(error.kind == .invalidParams)
            #expect(error.message.contains("'city'"))
            #expect(error.message.contains("'per_page'"))
        }
        #expect(try await server.requests(path: "/paged/page").isEmpty, "nothing was sent")
    }
}

/// A manager declared in Swift: only what is particular to it, defaults for the rest.
struct CursorItems: ManagerSpec {
    let name = "items"
    let path = "/paged/cursor"
    var parameters: [String: Value] { ["limit": .int(6), "total": .int(20)] }
    var records: ValuePath? { try? ValuePath(parsing: "items") }
    var paging: PagingPlan { .cursor(param: "cursor", token: "next_cursor") }
    var takeoff: TakeoffPolicy { .cancelInFlight }
}

@Suite(.timeLimit(.minutes(10))) struct SwiftDeclaredManagerTests {
    @Test func aManagerDeclaredInSwiftPagesLikeOneFromYAML() async throws {
        let server = try TestServer()
        let service = try ServicePlan.named("api", baseURL: "${TEST_URL}", headers: ["X-Client": "tests"])
        let client = try ServiceClient(service: service, environment: ["TEST_URL": server.url])
        let manager = APIManager(spec: CursorItems(), client: client)
        #expect(manager.plan.takeoff == .cancelInFlight)
        let (records, pages, stop) = try await manager.loadAll()
        #expect(records.count == 20)
        #expect(pages == 4)
        #expect(stop == "no next token")
    }
}
