import Foundation
import ReformSystem
import ReformTestSupport

/// A certificate authority made for one test by `openssl`, a server certificate it issued for
/// 127.0.0.1 and localhost, and a client certificate it issued (for mutual TLS); PEM files in a
/// scratch folder. A second, unrelated CA's client certificate tests a certificate the server
/// does not trust.
struct TestCertificates {
    let folder: String
    var caFile: String { folder + "/ca.pem" }
    var serverCertificate: String { folder + "/server.pem" }
    var serverKey: String { folder + "/server.key" }
    var clientCertificate: String { folder + "/client.pem" }
    var clientKey: String { folder + "/client.key" }
    var strangerCertificate: String { folder + "/stranger.pem" }
    var strangerKey: String { folder + "/stranger.key" }

    /// Makes them, off the cooperative pool (openssl is waited for).
    static func make() async throws -> TestCertificates { try await offPool { try TestCertificates() } }

    private init() throws {
        folder = Scratch.path("tls")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n".write(
            toFile: folder + "/server.ext", atomically: true, encoding: .utf8)
        try "extendedKeyUsage=clientAuth\n".write(toFile: folder + "/client.ext", atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let folder = folder
        let at = { (name: String) in folder + "/" + name }
        for (name, subject) in [("ca", "/CN=Reform Test CA"), ("other-ca", "/CN=Another CA")] {
            try openssl(
                ["req", "-x509"] + key + ["-keyout", at("\(name).key"), "-out", at("\(name).pem"), "-days", "3650", "-subj", subject])
        }
        for (name, ca, ext) in [("server", "ca", "server.ext"), ("client", "ca", "client.ext"), ("stranger", "other-ca", "client.ext")] {
            try openssl(["req"] + key + ["-keyout", at("\(name).key"), "-out", at("\(name).csr"), "-subj", "/CN=reform-\(name)"])
            try openssl([
                "x509", "-req", "-in", at("\(name).csr"), "-CA", at("\(ca).pem"), "-CAkey", at("\(ca).key"), "-CAcreateserial",
                "-out", at("\(name).pem"), "-days", "3650", "-extfile", at(ext),
            ])
        }
    }

    private func openssl(_ arguments: [String]) throws {
        let output = open("/dev/null", O_WRONLY)
        defer { close(output) }
        let pid = try Spawn.start(["/usr/bin/openssl"] + arguments, stdout: output, stderr: output)
        let status = Spawn.wait(pid)
        guard status == 0 else {
            throw ServerStartError(output: "openssl \(arguments.joined(separator: " ")) failed (\(status))")
        }
    }
}
