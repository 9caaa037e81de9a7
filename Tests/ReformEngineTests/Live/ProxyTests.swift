import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// HTTP proxies, against the test server acting as a forward proxy (CONNECT tunnels, which
/// AsyncHTTPClient opens for http and https alike) in front of another test server: a service's `proxy:`,
/// `HTTPS_PROXY`/`HTTP_PROXY` and `NO_PROXY` from the environment, and `proxy: none`.
@Suite(.timeLimit(.minutes(10))) struct ProxyTests {
    private let manager =
        "\nmanagers:\n  m: { service: api, path: /paged/cursor, params: { total: 25 }, records: items, "
        + "paging: { policy: cursor, param: cursor, token: next_cursor } }"

    @Test func plainAndTLSRequestsGoThroughTheServicesProxy() async throws {
        let proxy = try TestServer()
        let origin = try TestServer()
        let plain = try origin.pipeline(service("proxy: http://127.0.0.1:\(proxy.port)") + manager)
        #expect(try await origin.manager("m", in: plain).loadAll().records.count == 25)
        let plainTunnels = try await proxy.requests(path: "127.0.0.1:\(origin.port)")
        #expect(!plainTunnels.isEmpty && plainTunnels.allSatisfy { $0["method"] == .string("CONNECT") }, "\(plainTunnels)")
        #expect(try await origin.requests(path: "/paged/cursor").count == 3)

        let certificates = try await TestCertificates.make()
        let secure = try TestServer(arguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey])
        let environment = ["TEST_URL": "https://127.0.0.1:\(secure.port)"]
        let tls = try secure.pipeline(
            service("proxy: http://127.0.0.1:\(proxy.port)\ntls: { ca_file: \(certificates.caFile) }") + manager, environment: environment)
        #expect(try await secure.manager("m", in: tls, environment: environment).loadAll().records.count == 25)
        let tunnels = try await proxy.requests(path: "127.0.0.1:\(secure.port)")
        #expect(!tunnels.isEmpty && tunnels.allSatisfy { $0["method"] == .string("CONNECT") }, "\(tunnels)")
    }

    @Test func theEnvironmentsProxyIsUsedUnlessNoProxyOrTheServiceSaysOtherwise() async throws {
        let proxy = try TestServer()
        let origin = try TestServer()
        let folder = Scratch.path("proxy")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        func write(_ extra: String) throws {
            try """
            reform: 1
            services: { api: { base_url: "http://127.0.0.1:\(origin.port)"\(extra) } }
            managers:
              m: { service: api, path: /paged/cursor, params: { total: 25 }, records: items, paging: { policy: cursor, param: cursor, token: next_cursor } }
            runs: { default: { output: { format: ndjson, path: out.ndjson } } }
            """.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
        }
        func run(_ environment: [String: String]) async throws -> Int {
            let before = try await proxy.requests(path: nil).count
            let outcome = try await ReformBinary.run(["run", "p.yaml", "--live", "--quiet"], environment: environment, in: folder)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            return try await proxy.requests(path: nil).count - before
        }
        try write("")
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        #expect(try await run(["HTTP_PROXY": proxyURL]) > 0, "HTTP_PROXY")
        #expect(try await run(["http_proxy": proxyURL]) > 0, "http_proxy")
        #expect(try await run(["HTTP_PROXY": proxyURL, "NO_PROXY": "example.com, 127.0.0.1"]) == 0, "NO_PROXY")
        #expect(try await run(["HTTPS_PROXY": proxyURL]) == 0, "HTTPS_PROXY is for https only")
        try write(", proxy: none")
        #expect(try await run(["HTTP_PROXY": proxyURL]) == 0, "proxy: none")
    }

    @Test func aProxyThatIsNotAURLIsRefusedWhenThePipelineLoads() throws {
        let server = try TestServer()
        #expect {
            try server.pipeline(service("proxy: \"\"") + manager)
        } throws: { error in
            "\(error)".contains("'proxy' of service 'api' must be a proxy's URL, like http://proxy.internal:3128, or none")
        }
    }
}
