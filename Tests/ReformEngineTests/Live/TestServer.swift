import Foundation
import ReformEngine
import ReformSDK
import ReformSystem
import ReformTestSupport

/// The loopback HTTP server under `Tests/Server/` (Python standard library), one per test, so
/// tests never see each other's requests. Stopped when released.
final class TestServer: @unchecked Sendable {
    let port: Int
    private let pid: pid_t

    /// Starts a server; `arguments` are the script's own (`--tls-cert`, …).
    init(arguments: [String] = []) throws {
        var pipe: [Int32] = [0, 0]
        guard ReformSystem.pipe(&pipe) == 0 else { throw ServerStartError(output: "pipe failed") }
        let script = ProjectRoot.path + "/Tests/Server/reform_test_server.py"
        let child = try Spawn.start(["/usr/bin/env", "python3", script, "--port", "0", "--quiet"] + arguments, stdout: pipe[1])
        close(pipe[1])
        defer { close(pipe[0]) }
        pid = child
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(pipe[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on "), let port = Int(text.dropFirst(13)) else {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            throw ServerStartError(output: text)
        }
        self.port = port
    }

    deinit {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// The requests the server received for `path` (its `/_log`; every request when nil), oldest
    /// first; `trusting` a CA file: the server speaks TLS.
    func requests(path: String?, trusting caFile: String? = nil) async throws -> [Object] {
        var request = HTTPRequest(method: "GET", path: "/_log", query: path.map { [QueryItem(name: "path", value: $0)] } ?? [])
        request.baseURL = caFile == nil ? url : "https://127.0.0.1:\(port)"
        request.tls = caFile.map { TLSPlan(caFile: $0) }
        let response = try await LiveTransport().send(request, for: ManagerRef(index: 0, name: "test"))
        guard case .object(let top)? = response.body, case .array(let entries)? = top["requests"] else { return [] }
        return entries.compactMap { if case .object(let o) = $0 { o } else { nil } }
    }

    /// POSTs `json` to the server's `path` (its admin endpoints), and returns the answer's body.
    @discardableResult
    func post(_ path: String, _ json: String = "{}") async throws -> Value? {
        var request = HTTPRequest(
            method: "POST", path: path, headers: [QueryItem(name: "Content-Type", value: "application/json")], body: Array(json.utf8))
        request.baseURL = url
        let response = try await LiveTransport().send(request, for: ManagerRef(index: 0, name: "test"))
        guard response.status == 200 else { throw ServerStartError(output: "POST \(path): status \(response.status)") }
        return response.body
    }

    /// Waits (up to 10 s) until the server has received a request for `path`.
    func waitForRequest(path: String) async throws {
        for _ in 0..<200 {
            if try await !requests(path: path).isEmpty { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerStartError(output: "no request for \(path) arrived")
    }

    /// Waits (up to 20 s) until the first request for `path` has ended, and returns its log entry:
    /// `completed` when the server answered, `client_closed` when the client went away first.
    func waitForEnd(path: String) async throws -> Object {
        for _ in 0..<400 {
            if let entry = try await requests(path: path).first,
                entry["completed"] == .bool(true) || entry["client_closed"] == .bool(true)
            {
                return entry
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerStartError(output: "the request for \(path) did not end")
    }

    /// Loads a pipeline written as `yaml` whose services reach this server through `${TEST_URL}`.
    func pipeline(_ yaml: String, environment: [String: String] = [:]) throws -> Pipeline {
        let folder = try TemporaryFolder()
        let path = try folder.write("pipeline.yaml", yaml)
        return try PipelineLoader(environment: environment.merging(["TEST_URL": url]) { a, _ in a }).load(path: path)
    }

    /// An ``APIManager`` for `manager` of `pipeline`, sending through a fresh service client
    /// (bodies the plan streams go to disk with `streamsBodies`).
    func manager(
        _ name: String, in pipeline: Pipeline, params: [String: Value] = [:], environment: [String: String] = [:],
        interceptors: [any Interceptor] = [], events: EventHub = EventHub(), cache: ResponseCache? = nil,
        transport: LiveTransport = LiveTransport(), streamsBodies: Bool = false
    ) throws -> APIManager {
        guard let plan = pipeline.managers.first(where: { $0.ref.name == name }),
            let service = pipeline.services.first(where: { $0.name == plan.service })
        else { throw ServerStartError(output: "no manager \(name)") }
        let client = try ServiceClient(
            service: service, environment: environment.merging(["TEST_URL": url]) { a, _ in a }, transport: transport,
            events: events)
        return APIManager(
            plan: plan, client: client, params: params, interceptors: interceptors, cache: cache, streamsBodies: streamsBodies)
    }
}

struct ServerStartError: Error, CustomStringConvertible {
    let output: String
    var description: String { "the test server did not start: \(output)" }
}

extension APIManager {
    /// Every record of every page, paging to the end.
    func loadAll() async throws -> (records: [Value], pages: Int, stop: String?) {
        var landing = try await load()
        var records = try landing.allRecords()
        var pages = 1
        while let next = try await loadNextPage() {
            records += try next.allRecords()
            pages += 1
            landing = next
        }
        return (records, pages, landing.stopReason?.description)
    }
}

/// A service block reaching the test server, with extra lines for the service.
func service(_ extra: String = "") -> String {
    """
    reform: 1
    services:
      api:
        base_url: "${TEST_URL}"
        timeout: 5s
    \(extra.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    """
}
