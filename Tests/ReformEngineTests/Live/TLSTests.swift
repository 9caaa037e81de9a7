import Foundation
import ReformEngine
import ReformSDK
import ReformTestSupport
import Testing

/// `https://` as companies run it, against the test server over TLS with a CA made by the test:
/// a private CA trusted through `tls.ca_file` or `SSL_CERT_FILE` (and its absence explained in
/// one line), and a server that requires a client certificate (mutual TLS).
@Suite(.timeLimit(.minutes(10))) struct TLSTests {
    /// A pipeline of one cursor-paged manager on `https://127.0.0.1:PORT`, with `tls` under its service.
    private func pipeline(_ server: TestServer, tls: String?) throws -> Pipeline {
        try server.pipeline(
            service(tls.map { "tls: \($0)" } ?? "")
                + "\nmanagers:\n  m: { service: api, path: /paged/cursor, params: { total: 25 }, records: items, "
                + "paging: { policy: cursor, param: cursor, token: next_cursor } }",
            environment: ["TEST_URL": "https://127.0.0.1:\(server.port)"])
    }

    private func load(_ server: TestServer, _ pipeline: Pipeline, client: LiveTransport.Client = .builtIn) async throws -> [Value] {
        try await server.manager(
            "m", in: pipeline, environment: ["TEST_URL": "https://127.0.0.1:\(server.port)"], transport: LiveTransport(client: client)
        ).loadAll().records
    }

    @Test func aPrivateCAIsTrustedThroughCAFileAndItsAbsenceIsExplainedInOneLine() async throws {
        let certificates = try await TestCertificates.make()
        let server = try TestServer(arguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey])
        do {
            _ = try await load(server, pipeline(server, tls: nil))
            Issue.record("a certificate of an unknown CA was accepted")
        } catch {
            #expect("\(error)".contains("is not trusted (issued by CN=Reform Test CA: "), "the issuer is named: \(error)")
            #expect("\(error)".contains("give its CA's certificate (PEM) with the service's tls.ca_file"), "\(error)")
            #expect(!"\(error)".contains("handshake.cc"), "no library dump: \(error)")
        }
        let records = try await load(server, pipeline(server, tls: "{ ca_file: \(certificates.caFile) }"))
        #expect(records.count == 25)
    }

    /// `p.yaml` in `folder`: the cursor-paged manager on `https://127.0.0.1:port`, written to `out.ndjson`.
    private func writeCursorPipeline(in folder: String, port: Int) throws {
        try """
        reform: 1
        services: { api: { base_url: "https://127.0.0.1:\(port)" } }
        managers:
          m: { service: api, path: /paged/cursor, params: { total: 25 }, records: items, paging: { policy: cursor, param: cursor, token: next_cursor } }
        runs: { default: { output: { format: ndjson, path: out.ndjson } } }
        """.write(toFile: folder + "/p.yaml", atomically: true, encoding: .utf8)
    }

    @Test func sslCertFileIsTrustedAsOpenSSLToolsDo() async throws {
        let certificates = try await TestCertificates.make()
        let server = try TestServer(arguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey])
        let folder = Scratch.path("ssl-cert-file")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try writeCursorPipeline(in: folder, port: server.port)
        let without = try await ReformBinary.run(["run", "p.yaml", "--live", "--quiet"], environment: [:], in: folder)
        #expect(without.status == 1)
        #expect(without.stderr.contains("not trusted"), "\(without.stderr)")
        let with = try await ReformBinary.run(
            ["run", "p.yaml", "--live", "--quiet"], environment: ["SSL_CERT_FILE": certificates.caFile], in: folder)
        #expect(with.status == 0, "\(with.stderr)")
        #expect((try String(contentsOfFile: folder + "/out.ndjson", encoding: .utf8)).split(separator: "\n").count == 25)
    }

    /// `SSL_CERT_DIR` (folders, `:`-separated, as OpenSSL reads it): its PEM certificates are
    /// trusted too; a file in it that is not one (a README, a key) is passed over.
    @Test func sslCertDirIsTrustedAsOpenSSLToolsDo() async throws {
        let certificates = try await TestCertificates.make()
        let server = try TestServer(arguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey])
        let folder = Scratch.path("ssl-cert-dir")
        let trusted = folder + "/certs"
        try FileManager.default.createDirectory(atPath: trusted, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: certificates.caFile, toPath: trusted + "/reform-test-ca.pem")
        try "not a certificate\n".write(toFile: trusted + "/README", atomically: true, encoding: .utf8)
        try writeCursorPipeline(in: folder, port: server.port)
        let with = try await ReformBinary.run(
            ["run", "p.yaml", "--live", "--quiet"], environment: ["SSL_CERT_DIR": "/nonexistent:" + trusted], in: folder)
        #expect(with.status == 0, "\(with.stderr)")
        #expect((try String(contentsOfFile: folder + "/out.ndjson", encoding: .utf8)).split(separator: "\n").count == 25)
        // A folder of c_rehash links (as the system's is) is looked up by OpenSSL itself, not read whole.
        let hashed = folder + "/hashed"
        try FileManager.default.createDirectory(atPath: hashed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: certificates.caFile, toPath: hashed + "/reform-test-ca.pem")
        let rehash = Process()
        rehash.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        rehash.arguments = ["rehash", hashed]
        #expect(try await runToEnd(rehash).status == 0)
        try FileManager.default.removeItem(atPath: folder + "/out.ndjson")
        let linked = try await ReformBinary.run(["run", "p.yaml", "--live", "--quiet"], environment: ["SSL_CERT_DIR": hashed], in: folder)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect((try String(contentsOfFile: folder + "/out.ndjson", encoding: .utf8)).split(separator: "\n").count == 25)
    }

    @Test func aServerRequiringAClientCertificateGetsTheOneGivenAndOnlyThatOne() async throws {
        let certificates = try await TestCertificates.make()
        let server = try TestServer(arguments: [
            "--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey, "--tls-client-ca", certificates.caFile,
        ])
        for (tls, what) in [
            ("{ ca_file: \(certificates.caFile) }", "no client certificate"),
            (
                "{ ca_file: \(certificates.caFile), client_cert: \(certificates.strangerCertificate), client_key: \(certificates.strangerKey) }",
                "a certificate of another CA"
            ),
        ] {
            do {
                _ = try await load(server, pipeline(server, tls: tls))
                Issue.record("\(what) was accepted")
            } catch {
                #expect("\(error)".contains("give one with the service's tls.client_cert and tls.client_key"), "\(what): \(error)")
            }
        }
        let tls =
            "{ ca_file: \(certificates.caFile), client_cert: \(certificates.clientCertificate), client_key: \(certificates.clientKey) }"
        #expect(try await load(server, pipeline(server, tls: tls)).count == 25)
    }

    @Test func tlsFilesAreCheckedWhenThePipelineLoads() throws {
        let server = try TestServer()
        #expect {
            try pipeline(server, tls: "{ ca_file: missing-ca.pem, client_cert: c.pem }")
        } throws: { error in
            let text = "\(error)"
            return text.contains("'tls.ca_file' of service 'api': 'missing-ca.pem' does not exist")
                && text.contains("needs client_cert and client_key together")
        }
    }

    /// The built-in client's TLS keeps one connection for every page, as it does for plain http.
    @Test func everyPageGoesOverOneTLSConnection() async throws {
        let certificates = try await TestCertificates.make()
        let server = try TestServer(arguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey])
        #expect(try await load(server, pipeline(server, tls: "{ ca_file: \(certificates.caFile) }")).count == 25)
        let log = try await server.requests(path: "/paged/cursor", trusting: certificates.caFile)
        #expect(log.count > 2)
        let arrivals = log.map { $0["at"]?.doubleValue ?? 0 }
        let longWaits = zip(arrivals, arrivals.dropFirst()).filter { $1 - $0 >= 25 }.count
        #expect(Set(log.map { $0["connection"] }).count <= 1 + longWaits, "pages reuse one keep-alive TLS connection")
    }

    /// `tls.server_name`: the name asked for and checked in place of the base URL's host (here an
    /// address); a name the certificate does not carry is refused, saying which setting to look at.
    @Test func serverNameIsCheckedInPlaceOfTheHost() async throws {
        let certificates = try await TestCertificates.make()
        let server = try TestServer(arguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey])
        let named = try pipeline(server, tls: "{ ca_file: \(certificates.caFile), server_name: localhost }")
        #expect(try await load(server, named).count == 25)
        do {
            _ = try await load(server, pipeline(server, tls: "{ ca_file: \(certificates.caFile), server_name: api.example.com }"))
            Issue.record("a certificate for 127.0.0.1 and localhost was accepted for api.example.com")
        } catch {
            #expect("\(error)".contains("is not for that host name"), "\(error)")
            #expect("\(error)".contains("tls.server_name"), "\(error)")
        }
        #expect {
            try pipeline(server, tls: "{ server_name: \"https://api.example.com\" }")
        } throws: { error in
            "\(error)".contains("'tls.server_name' of service 'api' must be a host name (api.example.com), not 'https://api.example.com'")
        }
    }

    /// Through AsyncHTTPClient (`--http-client async-http-client`, and every proxied request) an
    /// unknown CA is explained in one line too, and `server_name` is refused as it cannot be honoured there.
    @Test func asyncHTTPClientExplainsAnUnknownCAAndRefusesServerName() async throws {
        let certificates = try await TestCertificates.make()
        let server = try TestServer(arguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey])
        do {
            _ = try await load(server, pipeline(server, tls: nil), client: .asyncHTTPClient)
            Issue.record("a certificate of an unknown CA was accepted")
        } catch {
            #expect("\(error)".contains("is not trusted"), "\(error)")
            #expect("\(error)".contains("tls.ca_file"), "\(error)")
        }
        #expect(
            try await load(server, pipeline(server, tls: "{ ca_file: \(certificates.caFile) }"), client: .asyncHTTPClient).count == 25)
        do {
            let named = try pipeline(server, tls: "{ ca_file: \(certificates.caFile), server_name: localhost }")
            _ = try await load(server, named, client: .asyncHTTPClient)
            Issue.record("server_name was accepted by a client that cannot honour it")
        } catch {
            #expect("\(error)".contains("tls.server_name 'localhost' is honoured by the built-in client only"), "\(error)")
        }
    }
}
