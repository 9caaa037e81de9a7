import AsyncHTTPClient
import NIOCore
import NIOSSL
import ReformConcurrency
import ReformSDK
import ReformSystem

/// The AsyncHTTPClient clients of the process, one per TLS setup and proxy: the shared one for
/// services that declare no `tls:` and use no proxy, and one for each other combination (trust
/// roots, client certificate and proxy are fixed when a client is made). Each pools its connections for every manager using it; none is
/// ever shut down, as none is ever deinitialised.
///
/// Every client trusts the system's CAs — or, as OpenSSL-based tools (curl, Python) do, the PEM
/// file `SSL_CERT_FILE` names in their place; SwiftNIO's TLS does not read it by itself.
enum HTTPClients {
    /// What makes a client other than the shared one.
    private struct Setup: Hashable {
        var tls: TLSPlan?
        var proxy: ProxyChoice?
    }

    private static let clients = Guarded<[Setup: HTTPClient]>([:])

    /// The client for requests with `tls` through `proxy` (both nil: the shared one).
    static func client(for tls: TLSPlan?, proxy: ProxyChoice?, manager: ManagerRef, request: String) throws(TransportError)
        -> HTTPClient
    {
        guard tls != nil || proxy != nil else { return shared }
        let setup = Setup(tls: tls, proxy: proxy)
        if let made = clients.withLock({ $0[setup] }) { return made }
        let configuration: TLSConfiguration
        do { configuration = try tlsConfiguration(tls ?? TLSPlan()) } catch {
            throw TransportError(
                .invalidRequest, manager: manager.name, request: request,
                message: "the service's tls files cannot be read: \(error); check tls.ca_file, tls.client_cert and tls.client_key")
        }
        let made = make(configuration, proxy: proxy)
        return clients.withLock { clients in
            if let raced = clients[setup] { return raced }
            clients[setup] = made
            return made
        }
    }

    /// The client of services without `tls:`.
    static let shared: HTTPClient = make(environmentTrust(TLSConfiguration.makeClientConfiguration()))

    private static func make(_ tls: TLSConfiguration, proxy: ProxyChoice? = nil) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: nil),
            decompression: .disabled)
        if let proxy {
            let authorization = proxy.user.map { HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "") }
            configuration.proxy = .server(host: proxy.host, port: proxy.port, authorization: authorization)
        }
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        // A connection that cannot be made fails its request at once, as with the built-in client,
        // and the service's retry policy decides what happens next: AsyncHTTPClient would try
        // again until the request's deadline, and a certificate nobody trusts only came back as a
        // timeout 10 s later.
        configuration.connectionPool.retryConnectionEstablishment = false
        // No tracing spans: Reform has no tracer to give them to, and making one per request
        // (attributes, span bookkeeping) was about 5% of the CPU samples of a 1,000-page run.
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The system's trust, `SSL_CERT_FILE`/`SSL_CERT_DIR`, `tls.ca_file`, and the client certificate.
    private static func tlsConfiguration(_ plan: TLSPlan) throws -> TLSConfiguration {
        var configuration = environmentTrust(TLSConfiguration.makeClientConfiguration())
        if let caFile = plan.caFile {
            // Read now, so that a file that is not PEM certificates is an error naming it, not a
            // handshake that fails later for a reason nobody can see.
            configuration.additionalTrustRoots.append(.certificates(try NIOSSLCertificate.fromPEMFile(caFile)))
        }
        if let certificate = plan.clientCertificate, let key = plan.clientKey {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
        }
        return configuration
    }

    /// `configuration` trusting `SSL_CERT_FILE` in place of the system's file of CAs, and the PEM
    /// certificates in the `SSL_CERT_DIR` folders (`:`-separated) as well, as OpenSSL tools read
    /// them. A file in such a folder that is not a certificate (a README, a key, a CRL) is passed
    /// over: SwiftNIO's own reading of a folder fails on the first one.
    private static func environmentTrust(_ configuration: TLSConfiguration) -> TLSConfiguration {
        var configuration = configuration
        if let file = getenv("SSL_CERT_FILE").map({ String(cString: $0) }), !file.isEmpty, FilePaths.isFile(file) {
            configuration.trustRoots = .file(file)
        }
        var certificates: [NIOSSLCertificate] = []
        for path in EnvironmentTrust.files(leavingHashedFolders: false) {
            if let found = try? NIOSSLCertificate.fromPEMFile(path) { certificates += found }
        }
        if !certificates.isEmpty { configuration.additionalTrustRoots.append(.certificates(certificates)) }
        return configuration
    }
}
