import ReformConcurrency
import ReformHTTP1
public import ReformSDK

/// Sends requests over real HTTP.
///
/// `http://` and `https://` go through Reform's own HTTP/1.1 client (`ReformHTTP1`, TLS over the
/// system OpenSSL): a keep-alive
/// connection per host reused across pages, the exchange done blocking with one deadline — right
/// on a live source's fetch thread (`BlockingExecutor`), on the connection's own thread from
/// anywhere else — and a cancelled task shutting its socket down at once (the server sees it
/// closed). It is there for speed: AsyncHTTPClient's request path hands every exchange between
/// its event loop, its state machine and our tasks several times, and a paged run over loopback
/// spent most of its time there (docs/speed.md, "HTTP"). Requests through a proxy go through
/// AsyncHTTPClient (the same guarantees: cancellation closes the connection, pooled connections, a
/// deadline per request), and so does `https://` where libssl cannot be loaded; FoundationNetworking
/// on Linux gives none of them reliably. Redirects are
/// followed here, for both clients alike (`Redirects`).
public struct LiveTransport: Transport {
    /// Which client sends requests that go through no proxy.
    public enum Client: String, Sendable, CaseIterable {
        /// Reform's own HTTP/1.1 client (AsyncHTTPClient through a proxy).
        case builtIn = "built-in"
        /// AsyncHTTPClient for every request.
        case asyncHTTPClient = "async-http-client"
    }

    /// The body size accepted unless told otherwise: 64 MiB.
    public static let defaultMaxBodyBytes = 64 << 20
    /// The largest body accepted, in bytes; a larger one fails as `tooLarge`.
    public let maxBodyBytes: Int
    /// Which client sends requests that go through no proxy.
    public let client: Client

    /// A transport accepting bodies up to `maxBodyBytes` (64 MiB by default), sending requests
    /// that go through no proxy with `client`.
    public init(maxBodyBytes: Int = LiveTransport.defaultMaxBodyBytes, client: Client = .builtIn) {
        self.maxBodyBytes = maxBodyBytes
        self.client = client
    }

    /// Sends `request` (whose ``HTTPRequest/baseURL`` or origin must be set) and collects the body.
    public func send(_ request: HTTPRequest, for manager: ManagerRef) async throws(TransportError) -> HTTPResponse {
        let prefix = request.origin ?? request.baseURL ?? ""
        guard prefix.hasPrefix("http://") || prefix.hasPrefix("https://") else {
            throw TransportError(
                .invalidRequest, manager: manager.name, request: "\(request.method) \(request.path)",
                message: "'\(request.url)' is not an http(s) URL")
        }
        return try await sendFollowingRedirects(request, for: manager)
    }

    /// A response from what came over the wire: a compressed body inflated (``ContentDecoding``,
    /// at most `maxBodyBytes`), then as ``response(status:headers:bytes:)`` makes it.
    func response(status: Int, headers: [QueryItem], wire bytes: [UInt8], for manager: ManagerRef, shown: String)
        throws(TransportError) -> HTTPResponse
    {
        do {
            guard let inflated = try ContentDecoding.decoded(bytes, headers: headers, limit: maxBodyBytes) else {
                return LiveTransport.response(status: status, headers: headers, bytes: bytes)
            }
            return LiveTransport.response(status: status, headers: headers, bytes: inflated)
        } catch {
            switch error {
            case .tooLarge:
                throw TransportError(
                    .tooLarge, manager: manager.name, request: shown,
                    message: "the \(bytes.count)-byte compressed body inflates past \(maxBodyBytes) bytes; nothing of it was landed "
                        + "(raise the limit with --max-body-bytes)")
            case .undecodable(let reason):
                throw TransportError(.undecodable, manager: manager.name, request: shown, message: "\(reason); nothing of it was landed")
            }
        }
    }

    /// A response from raw parts: JSON bodies are parsed, others kept as text.
    static func response(status: Int, headers: [QueryItem], bytes: [UInt8]) -> HTTPResponse {
        let contentType = headers.first { ASCIICase.equals($0.name, "content-type") }?.value ?? ""
        let first = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        let looksJSON = ASCIICase.contains(contentType, "json") || first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        guard !bytes.isEmpty, looksJSON else {
            return HTTPResponse(
                status: status, headers: headers, body: nil, bodyText: String(decoding: bytes, as: UTF8.self),
                byteCount: bytes.count)
        }
        do {
            return HTTPResponse(status: status, headers: headers, body: try JSON.parse(bytes), byteCount: bytes.count)
        } catch {
            return HTTPResponse(
                // The whole text: an NDJSON or CSV manager reads its records from it (`format:`).
                status: status, headers: headers, body: nil, bodyText: String(decoding: bytes, as: UTF8.self),
                bodyProblem: "line \(error.line), column \(error.column): \(error.message)", byteCount: bytes.count)
        }
    }
}
