import Foundation
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

    init() throws {
        folder = Scratch.path("tls")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n".write(
            toFile: folder + "/server.ext", atomically: true, encoding: .utf8)
        try "extendedKeyUsage=clientAuth\n".write(toFile: folder + "/client.ext", atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "3650", "-subj", "/CN=Reform Test CA"])
        try openssl(
            ["req", "-x509"] + key + ["-keyout", "other-ca.key", "-out", "other-ca.pem", "-days", "3650", "-subj", "/CN=Another CA"])
        for (name, ca, ext) in [("server", "ca", "server.ext"), ("client", "ca", "client.ext"), ("stranger", "other-ca", "client.ext")] {
            try openssl(["req"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=reform-\(name)"])
            try openssl([
                "x509", "-req", "-in", "\(name).csr", "-CA", "\(ca).pem", "-CAkey", "\(ca).key", "-CAcreateserial", "-out", "\(name).pem",
                "-days", "3650", "-extfile", ext,
            ])
        }
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ServerStartError(output: "openssl \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))")
        }
    }
}
