import ReformConcurrency
import ReformSystem

/// What an `https://` connection of the built-in client trusts and presents: the system's
/// authorities (or `SSL_CERT_FILE` in their place, and the certificates in `SSL_CERT_DIR`'s
/// folders, as OpenSSL tools read them), a service's `ca_file` besides, its client certificate, and
/// the name the server's certificate is checked against and asked for (SNI) when it is not the
/// URL's host (`server_name`).
package struct HTTP1TLS: Hashable, Sendable {
    /// A file of PEM certificates of authorities trusted besides the system's.
    package var caFile: String?
    /// The client certificate chain (PEM) presented when the server asks for one.
    package var clientCertificate: String?
    /// Its private key (PEM, not encrypted).
    package var clientKey: String?
    /// The name sent in SNI and verified in the server's certificate in place of the URL's host.
    package var serverName: String?
    /// More files of PEM certificates trusted, each read if it can be and passed over if not: the
    /// engine lists those of `SSL_CERT_DIR`'s folders whatever their names (OpenSSL itself finds
    /// only hashed names there, and people drop a CA's `.pem` in as it is).
    package var environmentCertificates: [String]

    /// Settings with these files and name (none: the system's trust alone).
    package init(
        caFile: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil, serverName: String? = nil,
        environmentCertificates: [String] = []
    ) {
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.serverName = serverName
        self.environmentCertificates = environmentCertificates
    }

    /// Whether the system OpenSSL can be loaded, so that `https://` can go through the built-in client.
    package static var isAvailable: Bool {
        if case .success = OpenSSL.shared { return true }
        return false
    }

    /// One OpenSSL context per distinct settings, made when first used and kept for the process
    /// (contexts hold the parsed trust store; every connection with the same settings shares one).
    private static let contexts = Guarded<[HTTP1TLS: TLSContext]>([:])

    /// The context of these settings, made on first use.
    func context() throws(TLSProblem) -> TLSContext {
        if let made = HTTP1TLS.contexts.withLock({ $0[self] }) { return made }
        let made = try TLSContext(self)
        return HTTP1TLS.contexts.withLock { contexts in
            if let raced = contexts[self] { return raced }
            contexts[self] = made
            return made
        }
    }
}

/// An OpenSSL `SSL_CTX` made from ``HTTP1TLS`` settings: TLS 1.2 or later, the peer verified.
final class TLSContext: @unchecked Sendable {
    let library: OpenSSL
    let pointer: OpaquePointer

    init(_ settings: HTTP1TLS) throws(TLSProblem) {
        let library = try OpenSSL.shared.get()
        guard let pointer = library.contextNew(library.clientMethod()) else {
            throw .handshake("no TLS context could be made: \(library.lastError())")
        }
        self.library = library
        self.pointer = pointer
        library.contextVerify(pointer, OpenSSL.verifyPeer, TLSSession.noteRefusedCertificate)
        library.contextCertificateCallback(pointer, TLSSession.noteCertificateAsked, nil)
        _ = library.contextControl(pointer, OpenSSL.setMinimumVersion, OpenSSL.tls12, nil)
        _ = library.contextOptions(pointer, OpenSSL.ignoreUnexpectedEOF)
        // The system's authorities; OpenSSL itself puts SSL_CERT_FILE in place of its file and
        // reads SSL_CERT_DIR's hashed links. Its own default file is under the OPENSSLDIR it was
        // built with, which a container image made of a bundle does not have: the distributions'
        // bundle is read as well, as BoringSSL in AsyncHTTPClient does.
        _ = library.contextDefaultPaths(pointer)
        if getenv("SSL_CERT_FILE") == nil, let bundle = TLSContext.systemBundles.first(where: { access($0, R_OK) == 0 }) {
            _ = library.contextLoadLocations(pointer, bundle, nil)
        }
        for file in settings.environmentCertificates { _ = library.contextLoadLocations(pointer, file, nil) }
        library.errorClear()
        if let caFile = settings.caFile {
            guard library.contextLoadLocations(pointer, caFile, nil) == 1 else {
                throw .files("tls.ca_file '\(caFile)' holds no PEM certificate OpenSSL can read (\(library.lastError()))")
            }
        }
        if let certificate = settings.clientCertificate, let key = settings.clientKey {
            guard library.contextCertificateChain(pointer, certificate) == 1 else {
                throw .files("tls.client_cert '\(certificate)' is not a PEM certificate OpenSSL can read (\(library.lastError()))")
            }
            guard library.contextPrivateKey(pointer, key, OpenSSL.pem) == 1 else {
                throw .files("tls.client_key '\(key)' is not an unencrypted PEM private key (\(library.lastError()))")
            }
            guard library.contextCheckKey(pointer) == 1 else {
                throw .files("tls.client_key '\(key)' is not the key of tls.client_cert '\(certificate)'")
            }
        }
        library.errorClear()
    }

    deinit { library.contextFree(pointer) }

    /// Where distributions keep the file of trusted authorities: Debian and Ubuntu, Fedora and
    /// RHEL, Alpine.
    static let systemBundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]

}
