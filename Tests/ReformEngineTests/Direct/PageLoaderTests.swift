import ReformEngine
import ReformEngineTesting
import ReformSDK
import Testing

/// The paging state machine (`PageLoader`, driven through `APIManager`) against scripted
/// answers: every paging style, every stop rule, the requests it sends and why it stops.
@Suite(.timeLimit(.minutes(10))) struct PageLoaderTests {
    /// One paging style: how the manager pages, what the script answers, what it must ask.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let paging: String
        let script: [(query: [String: String], answer: ScriptedTransport.Answer)]
        let requests: [String]
        let records: Int
        let stop: StopReason
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "page numbers until a short page", paging: "{ policy: page, param: page, stop: { short_page: per_page } }",
            script: [
                (["page": "1"], .json(#"{"items": [1, 2, 3]}"#)), (["page": "2"], .json(#"{"items": [4, 5]}"#)),
            ],
            requests: ["GET /items?page=1&per_page=3", "GET /items?page=2&per_page=3"], records: 5,
            stop: StopReason(.shortPage, records: 2, limit: 3)),
        Case(
            name: "offsets until an empty page", paging: "{ policy: offset, param: offset }",
            script: [
                (["offset": "0"], .json(#"{"items": [1, 2, 3]}"#)), (["offset": "3"], .json(#"{"items": []}"#)),
            ],
            requests: ["GET /items?offset=0&per_page=3", "GET /items?offset=3&per_page=3"], records: 3, stop: StopReason(.emptyPage)),
        Case(
            name: "a cursor in the body until there is none", paging: "{ policy: cursor, param: after, token: next }",
            script: [
                ([:], .json(#"{"items": [1, 2, 3], "next": "c2"}"#)), (["after": "c2"], .json(#"{"items": [4], "next": null}"#)),
            ],
            requests: ["GET /items?per_page=3", "GET /items?after=c2&per_page=3"], records: 4, stop: StopReason(.noNextToken)),
        Case(
            name: "Link headers until no rel=next", paging: "{ policy: link }",
            script: [
                ([:], .json(#"{"items": [1, 2, 3]}"#, headers: [("Link", #"<http://api.test/items?page=2&per_page=3>; rel="next""#)])),
                (["page": "2"], .json(#"{"items": [4]}"#)),
            ],
            requests: ["GET /items?per_page=3", "GET /items?page=2&per_page=3"], records: 4, stop: StopReason(.noNextLink)),
        Case(
            name: "max_pages before the API runs out", paging: "{ policy: page, param: page, max_pages: 2 }",
            script: [
                (["page": "1"], .json(#"{"items": [1, 2, 3]}"#)), (["page": "2"], .json(#"{"items": [4, 5, 6]}"#)),
            ],
            requests: ["GET /items?page=1&per_page=3", "GET /items?page=2&per_page=3"], records: 6, stop: StopReason(.maxPages, limit: 2)),
        Case(
            name: "one request when it does not page", paging: "{ policy: none }",
            script: [([:], .json(#"{"items": [1, 2, 3]}"#))], requests: ["GET /items?per_page=3"], records: 3,
            stop: StopReason(.singleRequest)),
    ]

    @Test(arguments: cases)
    func pagesAndStops(_ test: Case) async throws {
        let transport = ScriptedTransport()
        for step in test.script { transport.on("/items", query: step.query, step.answer) }
        let manager = try await Self.manager(paging: test.paging, transport: transport)
        var records = 0
        var landing: Landing? = try await manager.load()
        var last = landing
        while let page = landing {
            records += page.records.count
            last = page
            landing = try await manager.loadNextPage()
        }
        #expect(records == test.records)
        #expect(last?.stopReason == test.stop)
        #expect(last?.isLast == true)
        #expect(transport.requestKeys == test.requests)
    }

    @Test func aPageThatRepeatsAnEarlierRequestIsALoopNotAHang() async throws {
        let transport = ScriptedTransport()
        transport.on("/items", .json(#"{"items": [1], "next": "same"}"#))
        transport.on("/items", query: ["after": "same"], .json(#"{"items": [2], "next": "same"}"#))
        transport.on("/items", query: ["after": "same"], .json(#"{"items": [3], "next": "same"}"#))
        let manager = try await Self.manager(paging: "{ policy: cursor, param: after, token: next }", transport: transport)
        _ = try await manager.load()
        await #expect(throws: ManagerError.self) {
            while try await manager.loadNextPage() != nil {}
        }
        do {
            while try await manager.loadNextPage() != nil {}
        } catch {
            #expect(error.kind == .pagingLoop || error.kind == .configuration)
        }
    }

    @Test func aTransportFailureIsTheManagersErrorWithItsKind() async throws {
        let transport = ScriptedTransport()
        transport.on("/items", query: ["page": "1"], .json(#"{"items": [1, 2, 3]}"#))
        transport.on("/items", query: ["page": "2"], .failure(.timeout, message: "no answer within 1 s"))
        let manager = try await Self.manager(paging: "{ policy: page, param: page }", transport: transport)
        _ = try await manager.load()
        do {
            _ = try await manager.loadNextPage()
            Issue.record("the timeout was not reported")
        } catch {
            #expect(error.kind == .timeout)
            #expect(error.description.contains("GET /items?page=2&per_page=3"))
        }
    }

    /// A page number placed in a JSON body (`{page}`) counts on from where a checkpoint's request
    /// left it, and `has_more` stops the paging when the body says there is no more.
    @Test func aPageNumberInABodyTemplateResumesAndHasMoreStops() throws {
        let harness = try RunHarness()
        try harness.write(
            "pipeline.yaml",
            """
            reform: 1
            services: { api: { base_url: "http://api.test" } }
            managers:
              items:
                service: api
                path: /items
                method: POST
                params: { per_page: { type: int, default: 3 } }
                body: { json: { paging: { page: "{page}", size: "{per_page}" } } }
                records: items
                paging: { policy: page, param: page, has_more: more }
            """)
        let plan = try #require(try harness.load("pipeline.yaml").managers.first)
        var loader = try PageLoader(manager: plan, params: [:])
        func body(_ request: HTTPRequest?) -> String { String(decoding: request?.body ?? [], as: UTF8.self) }
        #expect(body(loader.nextRequest) == #"{"paging":{"page":1,"size":3}}"#)
        #expect(loader.nextRequest?.query == [])
        loader.resume(at: HTTPRequest(method: "POST", path: "/items", body: Array(#"{"paging":{"page":4,"size":3}}"#.utf8)), pagesDone: 3)
        _ = try loader.land(HTTPResponse(status: 200, body: ["items": [1, 2, 3], "more": true]))
        #expect(body(loader.nextRequest) == #"{"paging":{"page":5,"size":3}}"#)
        _ = try loader.land(HTTPResponse(status: 200, body: ["items": [4, 5, 6], "more": false]))
        #expect(loader.nextRequest == nil)
        #expect(loader.stopReason == StopReason(.noMorePages))
    }

    /// A manager `items` paging as `paging` says, sending through `transport`.
    static func manager(paging: String, transport: ScriptedTransport) async throws -> APIManager {
        let harness = try RunHarness()
        try harness.write(
            "pipeline.yaml",
            """
            reform: 1
            services:
              api: { base_url: "http://api.test" }
            managers:
              items:
                service: api
                path: /items
                params: { per_page: 3 }
                records: items
                paging: \(paging)
            runs:
              default: { managers: [items], output: { format: ndjson } }
            """)
        let pipeline = try harness.load("pipeline.yaml")
        let plan = try #require(pipeline.managers.first { $0.ref.name == "items" })
        let service = try #require(pipeline.services.first { $0.name == "api" })
        return APIManager(plan: plan, client: try ServiceClient(service: service, environment: [:], transport: transport))
    }
}
