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

    private func load(_ server: TestServer, _ pipeline: Pipeline) async throws -> [Value] {
        try await server.manager("m", in: pipeline, environment: ["TEST_URL": "https://127.0.0.1:\(server.port)"]).loadAll().records
    }

    @Test func aPrivateCAIsTrustedThroughCAFileAndItsAbsenceIsExplainedInOneLine() async throws {
        let certificates = try await TestCertificates.make()
        let server = try TestServer(arguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey])
        do {
            _ = try await load(server, pipeline(server, tls: nil))
            Issue.record("a certificate of an unknown CA was accepted")
        } catch {
            #expect(
                "\(error)".contains(
                    "is not trusted (no known authority issued it); give its CA's certificate (PEM) with the service's tls.ca_file"),
                "\(error)")
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
}
