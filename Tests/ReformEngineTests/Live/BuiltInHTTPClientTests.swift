import Foundation
import ReformEngine
import ReformSDK
import Testing

/// The built-in HTTP/1.1 client (plain `http://`) against the real loopback server: body
/// framing, redirects, connection reuse and loss, and the same answers as AsyncHTTPClient.
@Suite(.timeLimit(.minutes(10))) struct BuiltInHTTPClientTests {
    private let manager = ManagerRef(index: 0, name: "test")

    private func get(
        _ server: TestServer, _ path: String, query: [QueryItem] = [], headers: [QueryItem] = [],
        client: LiveTransport.Client = .builtIn, maxBodyBytes: Int = LiveTransport.defaultMaxBodyBytes, timeout: Double? = nil
    ) async throws(TransportError) -> HTTPResponse {
        var request = HTTPRequest(method: "GET", path: path, query: query, headers: headers)
        request.baseURL = server.url
        request.timeout = timeout
        return try await LiveTransport(maxBodyBytes: maxBodyBytes, client: client).send(request, for: manager)
    }

    /// `get` with a 60 s timeout, once more after a timeout. Under the whole suite's load a
    /// redirect exchange ran past a 15 s timeout: the server's log shows the first hop answered at
    /// once, and the next hop waited for a thread of the concurrency pool (two here) that tests
    /// doing synchronous work held; these tests check where a redirect leads and what it carries,
    /// not how fast.
    private func getRedirected(
        _ server: TestServer, _ path: String, query: [QueryItem] = [], headers: [QueryItem] = [], client: LiveTransport.Client
    ) async throws(TransportError) -> HTTPResponse {
        do {
            return try await get(server, path, query: query, headers: headers, client: client, timeout: 60)
        } catch {
            guard error.kind == .timeout else { throw error }
            return try await get(server, path, query: query, headers: headers, client: client, timeout: 60)
        }
    }

    private func ids(_ response: HTTPResponse) -> [Int] {
        response.body?[at: "items"]?.arrayValue?.compactMap { $0[at: "id"]?.intNumber } ?? []
    }

    @Test("a chunked body with extensions and a trailer is joined whole", arguments: [1, 3, 40])
    func chunkedBody(parts: Int) async throws {
        let server = try TestServer()
        let response = try await get(
            server, "/chunked", query: [QueryItem(name: "count", value: "7"), QueryItem(name: "parts", value: "\(parts)")])
        #expect(response.status == 200)
        #expect(ids(response) == Array(1...7))
        #expect(response.header("transfer-encoding") == "chunked")
        // The connection stays open for the next request after a chunked body.
        _ = try await get(server, "/chunked")
        let log = try await server.requests(path: "/chunked")
        #expect(Set(log.compactMap { $0["connection"]?.intNumber }).count == 1)
    }

    @Test("a chunked body over the limit fails as too large")
    func chunkedTooLarge() async throws {
        let server = try TestServer()
        let error = await #expect(throws: TransportError.self) {
            _ = try await get(server, "/chunked", query: [QueryItem(name: "count", value: "50")], maxBodyBytes: 100)
        }
        #expect(error?.kind == .tooLarge)
        #expect(error?.message.contains("larger than 100 bytes") == true)
    }

    @Test("a body without length or chunks ends when the server closes; the next request opens a new connection")
    func bodyUntilClose() async throws {
        let server = try TestServer()
        let first = try await get(server, "/until-close")
        #expect(ids(first).count == 3)
        let second = try await get(server, "/until-close")
        #expect(ids(second).count == 3)
        let log = try await server.requests(path: "/until-close")
        #expect(Set(log.compactMap { $0["connection"]?.intNumber }).count == 2)
    }

    @Test("a connection the server closed while idle is not reused: the next request succeeds on a new one")
    func idleCloseReconnects() async throws {
        let server = try TestServer()
        for after in ["0", "0.05"] {
            _ = try await get(server, "/idle-close", query: [QueryItem(name: "after", value: after)])
            try await Task.sleep(for: .milliseconds(200))
            let again = try await get(server, "/idle-close", query: [QueryItem(name: "after", value: after)])
            #expect(ids(again) == [1, 2])
        }
        let log = try await server.requests(path: "/idle-close")
        #expect(log.count == 4)
        #expect(Set(log.compactMap { $0["connection"]?.intNumber }).count == 4)
    }

    @Test("keep-alive: many requests share one connection")
    func keepAlive() async throws {
        let server = try TestServer()
        for page in 1...20 {
            let response = try await get(server, "/bench", query: [QueryItem(name: "page", value: "\(page)")])
            #expect(response.body?[at: "page"]?.intNumber == page)
        }
        let log = try await server.requests(path: "/bench")
        #expect(log.count == 20)
        #expect(Set(log.compactMap { $0["connection"]?.intNumber }).count == 1)
    }

    @Test("redirects are followed: relative and absolute Location, 303 turns a POST into a GET", arguments: LiveTransport.Client.allCases)
    func redirects(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let relative = try await getRedirected(
            server, "/redirect", query: [QueryItem(name: "to", value: "/echo?from=relative"), QueryItem(name: "hops", value: "2")],
            client: client)
        #expect(relative.status == 200)
        #expect(relative.body?[at: "path"]?.stringValue == "/echo")
        #expect(relative.body?[at: "query.from"]?.stringValue == "relative")
        let absolute = try await getRedirected(
            server, "/redirect", query: [QueryItem(name: "to", value: server.url + "/echo?from=absolute")], client: client)
        #expect(absolute.body?[at: "query.from"]?.stringValue == "absolute")

        var post = HTTPRequest(
            method: "POST", path: "/redirect", query: [QueryItem(name: "status", value: "303")],
            headers: [QueryItem(name: "Content-Type", value: "application/json")], body: Array(#"{"a":1}"#.utf8))
        post.baseURL = server.url
        let seeOther = try await LiveTransport(client: client).send(post, for: manager)
        #expect(seeOther.body?[at: "method"]?.stringValue == "GET")
        #expect(seeOther.body?[at: "body"]?.stringValue == "")
    }

    @Test("credentials are not sent to another origin after a redirect", arguments: LiveTransport.Client.allCases)
    func crossOriginRedirectDropsCredentials(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let secret = QueryItem(name: "Authorization", value: "Bearer s3cret")
        let sameOrigin = try await getRedirected(
            server, "/redirect", query: [QueryItem(name: "to", value: "/echo")], headers: [secret], client: client)
        #expect(sameOrigin.body?[at: "headers.authorization"]?.stringValue == "Bearer s3cret")
        let otherOrigin = try await getRedirected(
            server, "/redirect", query: [QueryItem(name: "to", value: "http://localhost:\(server.port)/echo")], headers: [secret],
            client: client)
        #expect(otherOrigin.status == 200)
        #expect(otherOrigin.body?[at: "headers.authorization"] == nil)
    }

    @Test("a service's secret headers are not sent to another origin after a redirect", arguments: LiveTransport.Client.allCases)
    func serviceSecretsStayWithTheirOrigin(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let pipeline = try server.pipeline(
            """
            reform: 1
            services:
              api:
                base_url: "${TEST_URL}"
                headers: { X-Team: "team-${TEAM_TOKEN}", X-Plain: visible }
                auth: { api_key: { header: X-API-Key, value: "${API_KEY}" } }
            managers:
              hop:
                service: api
                path: /redirect
                params: { to: { type: string, required: true } }
                interceptors: [{ headers: { X-Manager-Key: "${MANAGER_KEY}" } }]
            """)
        let environment = ["TEAM_TOKEN": "t0ken-team", "API_KEY": "k3y-secret", "MANAGER_KEY": "m4nager-secret"]
        func headers(after to: String) async throws -> Value? {
            let manager = try server.manager(
                "hop", in: pipeline, params: ["to": .string(to)], environment: environment, transport: LiveTransport(client: client))
            return try await manager.load().records.first?[at: "headers"]
        }
        let same = try await headers(after: "/echo")
        #expect(same?[at: "x-api-key"]?.stringValue == "k3y-secret")
        #expect(same?[at: "x-team"]?.stringValue == "team-t0ken-team")
        #expect(same?[at: "x-manager-key"]?.stringValue == "m4nager-secret")
        let other = try await headers(after: "http://localhost:\(server.port)/echo")
        #expect(other?[at: "x-api-key"] == nil)
        #expect(other?[at: "x-team"] == nil)
        #expect(other?[at: "x-manager-key"] == nil)
        #expect(other?[at: "x-plain"]?.stringValue == "visible", "a header without a secret still goes")
    }

    @Test("a redirect loop and too many redirects are errors that say so", arguments: LiveTransport.Client.allCases)
    func redirectLoops(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let loop = await #expect(throws: TransportError.self) {
            _ = try await get(server, "/redirect", query: [QueryItem(name: "loop", value: "1")], client: client)
        }
        #expect(loop?.kind == .invalidRequest)
        #expect(
            loop?.message == "redirect loop: http://127.0.0.1:\(server.port)/redirect?loop=1 sends back to "
                + "http://127.0.0.1:\(server.port)/redirect?loop=1; check the base_url and path")
        let tooMany = await #expect(throws: TransportError.self) {
            _ = try await get(server, "/redirect", query: [QueryItem(name: "hops", value: "9")], client: client)
        }
        #expect(tooMany?.message.hasPrefix("more than 5 redirects") == true)
    }

    /// Asks the server's `/raw` to answer with exactly `response`.
    private func raw(_ server: TestServer, _ response: String, keep: Bool = false, timeout: Double = 5) async throws(TransportError)
        -> HTTPResponse
    {
        let encoded = Data(response.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        var query = [QueryItem(name: "bytes", value: encoded)]
        if keep { query.append(QueryItem(name: "keep", value: "1")) }
        return try await get(server, "/raw", query: query, timeout: timeout)
    }

    @Test("repeated Transfer-Encoding fields are one list: the last coding, chunked, frames the body")
    func repeatedTransferEncoding() async throws {
        let server = try TestServer()
        let answer = try await raw(
            server,
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\n{\"a\":\r\n2\r\n1}\r\n0\r\n\r\n",
            keep: true, timeout: 2)
        #expect(answer.body == .object(["a": .int(1)]))
    }

    @Test("a response with both Transfer-Encoding and Content-Length is read as chunked and its connection not reused")
    func transferEncodingWithContentLength() async throws {
        let server = try TestServer()
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n"
        for _ in 0..<2 { #expect(try await raw(server, response, keep: true).body == .array([])) }
        let log = try await server.requests(path: "/raw")
        #expect(Set(log.compactMap { $0["connection"]?.intNumber }).count == 2)
    }

    @Test(
        "malformed framing is an error that says what is wrong",
        arguments: [
            ("HTTP/1.1 000 Zero\r\nContent-Length: 0\r\n\r\n", "the status code 0 is below 100"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-0\r\n\r\n", "a chunk size line is '-0', not a hexadecimal number"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\n{}", "Content-Length is '2, 3', not one whole number"),
            ("HTTP/2 200\r\n\r\n", "the status line is 'HTTP/2 200', not 'HTTP/1.1 CODE REASON'"),
            ("HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n", "a header name contains white space: 'Bad Header'"),
        ])
    func malformedFraming(response: String, problem: String) async throws {
        let server = try TestServer()
        let error = await #expect(throws: TransportError.self) { _ = try await raw(server, response) }
        #expect(error?.kind == .reset)
        #expect(error?.message == "the server's answer is not valid HTTP/1.1 (\(problem)); nothing of it was landed")
    }

    @Test("an endless stream of interim 100 Continue answers is cut off, not followed forever (audit D14)")
    func endlessInterimResponses() async throws {
        let server = try TestServer()
        let flood = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 150) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
        let error = await #expect(throws: TransportError.self) { _ = try await raw(server, flood) }
        #expect(
            error?.message
                == "the server's answer is not valid HTTP/1.1 (more than 100 interim (1xx) responses before the answer); nothing of it was landed"
        )
        let few = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 3) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
        #expect(try await raw(server, few).body == .object([:]))
    }

    @Test("a header value with a line break is refused before anything is sent")
    func headerInjection() async throws {
        let server = try TestServer()
        let error = await #expect(throws: TransportError.self) {
            _ = try await get(server, "/echo", headers: [QueryItem(name: "X-Note", value: "a\r\nX-Evil: 1")])
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message == "the value of header 'X-Note' contains a line break or control character")
        #expect(try await server.requests(path: "/echo").isEmpty)
    }

    @Test(
        "both clients answer the same: status, headers, parsed body, failures",
        arguments: ["/paged/page", "/status", "/html", "/malformed", "/no-content"])
    func sameAnswers(path: String) async throws {
        let server = try TestServer()
        let query = path == "/status" ? [QueryItem(name: "code", value: "418")] : []
        let builtIn = try await get(server, path, query: query, client: .builtIn)
        let reference = try await get(server, path, query: query, client: .asyncHTTPClient)
        #expect(builtIn.status == reference.status)
        #expect(builtIn.body == reference.body)
        #expect(builtIn.bodyText == reference.bodyText)
        #expect(builtIn.bodyProblem == reference.bodyProblem)
        #expect(builtIn.byteCount == reference.byteCount)
        #expect(builtIn.header("content-type") == reference.header("content-type"))
    }

    @Test("failures keep their kinds: reset mid-body, stalled body, refused", arguments: LiveTransport.Client.allCases)
    func failureKinds(client: LiveTransport.Client) async throws {
        let server = try TestServer()
        let reset = await #expect(throws: TransportError.self) { _ = try await get(server, "/reset", client: client) }
        #expect(reset?.kind == .reset)
        let stall = await #expect(throws: TransportError.self) {
            _ = try await get(
                server, "/stall", query: [QueryItem(name: "after", value: "10"), QueryItem(name: "seconds", value: "3")], client: client,
                timeout: 0.5)
        }
        #expect(stall?.kind == .timeout)
        var refused = HTTPRequest(method: "GET", path: "/")
        refused.baseURL = "http://127.0.0.1:9"
        let down = await #expect(throws: TransportError.self) { _ = try await LiveTransport(client: client).send(refused, for: manager) }
        #expect(down?.kind == .unreachable)
        #expect(down?.message.hasPrefix("connection refused") == true)
    }
}

extension Value {
    /// The value at `path` (`a.b`), `nil` when missing.
    fileprivate subscript(at path: String) -> Value? {
        guard let parsed = try? ValuePath(parsing: path) else { return nil }
        return self[path: parsed]
    }

    /// The number, when this is an int.
    fileprivate var intNumber: Int? {
        if case .int(let number) = self { return number }
        return nil
    }
}
