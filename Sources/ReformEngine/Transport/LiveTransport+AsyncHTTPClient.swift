import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import ReformHTTP1
import ReformSDK
import ReformSystem

extension LiveTransport {
    /// Sends `request` through AsyncHTTPClient, one exchange (redirects are followed by
    /// ``sendFollowingRedirects(_:for:)``, for both clients alike): `https://`, and `http://` when
    /// ``client`` says so. Errors show `shown` and the configured `seconds`.
    func sendWithAsyncHTTPClient(
        _ request: HTTPRequest, through proxy: ProxyChoice?, for manager: ManagerRef, shown: String, seconds configured: Double
    )
        async throws(TransportError) -> HTTPResponse
    {
        let url = request.url
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let seconds = request.timeout ?? configured
        let timeout = TimeAmount.nanoseconds(Int64(nanoseconds: seconds))
        let limit = maxBodyBytes
        let prepared = outgoing
        let transport = self
        let client = try HTTPClients.client(for: request.tls, proxy: proxy, manager: manager, request: shown)
        let sink = request.responseFile.map { ResponseFileSink(file: $0, idleSeconds: configured) }
        do {
            // AsyncHTTPClient's deadline covers the response head only; a body that stalls or
            // trickles is bounded by racing the whole exchange against the same deadline. The
            // loser is cancelled, which closes its connection.
            let answer = try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
                group.addTask {
                    let response = try await client.execute(prepared, timeout: timeout)
                    let headers = response.headers.map { QueryItem(name: $0.name, value: $0.value) }
                    if let sink,
                        let stored = try await LiveTransport.store(response, headers: headers, in: sink, for: manager, shown: shown)
                    {
                        return stored
                    }
                    let buffer = try await response.body.collect(upTo: limit)
                    return try transport.response(
                        status: Int(response.status.code), headers: headers, wire: Array(buffer.readableBytesView), for: manager,
                        shown: shown)
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(saturating: seconds))
                    // A body going to a file: each piece within `seconds` of the last instead.
                    while let sink, sink.isStoring, sink.idleFor < sink.idleSeconds {
                        try await Task.sleep(for: .seconds(saturating: sink.idleSeconds - sink.idleFor))
                    }
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let answer else {
                if let sink, sink.isStoring { throw sink.stalled(manager: manager.name, request: shown) }
                throw TransportError(
                    .timeout, manager: manager.name, request: shown,
                    message: "no complete answer within \(configured) s; raise the 'timeout' or retry on timeout")
            }
            return answer
        } catch let error as TransportError {
            throw error
        } catch {
            throw LiveTransport.classify(
                error, manager: manager.name, request: shown, maxBodyBytes: maxBodyBytes, address: LiveTransport.address(of: prepared.url))
        }
    }

    /// A 2XX response's body written to `sink`'s file as it arrives (`nil`: another status, whose
    /// body is read into memory as any).
    private static func store(
        _ response: HTTPClientResponse, headers: [QueryItem], in sink: ResponseFileSink, for manager: ManagerRef, shown: String
    ) async throws -> HTTPResponse? {
        do {
            guard try sink.accepts(status: Int(response.status.code), headers: headers.map { HTTP1Field(name: $0.name, value: $0.value) })
            else { return nil }
            for try await buffer in response.body {
                try buffer.withUnsafeReadableBytes { bytes in try sink.write(bytes) }
            }
            try sink.finish()
        } catch let failure as HTTP1Failure {
            let (kind, message) = sink.failure ?? (.notStored, "\(failure)")
            throw TransportError(kind, manager: manager.name, request: shown, message: message)
        }
        var stored = HTTPResponse(status: Int(response.status.code), headers: headers, body: nil, byteCount: sink.wireBytes)
        stored.bodyFile = sink.file
        return stored
    }

    /// `host:port` of `url` (the scheme's port when none is written), for messages.
    static func address(of url: String) -> String {
        var rest = Substring(url)
        var port = "80"
        if let scheme = rest.firstRange(of: "://") {
            if rest[..<scheme.lowerBound].lowercased() == "https" { port = "443" }
            rest = rest[scheme.upperBound...]
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let host = authority.split(separator: "@").last.map(String.init) ?? String(authority)
        if host.hasPrefix("[") || !host.contains(":") { return host.contains("]:") ? host : "\(host):\(port)" }
        return host
    }

    /// Maps what AsyncHTTPClient and NIO throw to a transport failure with advice.
    static func classify(_ error: any Error, manager: String, request: String, maxBodyBytes: Int, address: String = "the service")
        -> TransportError
    {
        func make(_ kind: TransportError.Kind, _ message: String) -> TransportError {
            TransportError(kind, manager: manager, request: request, message: message)
        }
        if error is CancellationError { return make(.cancelled, "cancelled") }
        if let problem = tlsProblem(error, address: address) { return make(.unreachable, problem) }
        if error is NIOTooManyBytesError {
            return make(
                .tooLarge, "the body is larger than \(maxBodyBytes) bytes; nothing of it was landed (raise the limit with --max-body-bytes)"
            )
        }
        if let http = error as? HTTPClientError {
            switch http {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                return make(.timeout, "no complete answer within the timeout (\(http)); raise the service's 'timeout' or retry on timeout")
            case .remoteConnectionClosed, .bodyLengthMismatch:
                return make(.reset, "the server closed the connection before the response was complete; nothing of it was landed")
            case .cancelled:
                return make(.cancelled, "cancelled")
            case .invalidURL, .emptyHost, .emptyScheme:
                return make(.invalidRequest, "the URL is not valid (\(http)); check the service's base_url")
            default:
                return make(.reset, "the exchange failed: \(http)")
            }
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED:
                return make(.unreachable, "connection refused by \(address); is the service running at its base_url? (or use --env)")
            case ECONNRESET, EPIPE:
                return make(.reset, "the connection was reset; nothing of the response was landed")
            default:
                return make(.unreachable, "\(io)")
            }
        }
        if let connect = error as? NIOConnectionError {
            let refused = connect.connectionErrors.contains { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
            return make(
                .unreachable,
                refused
                    ? "connection refused by \(address); is the service running at its base_url? (or use --env)"
                    : "cannot connect to \(connect.host):\(connect.port) (\(connect)); check the base_url and the network")
        }
        if error is HTTPParserError {
            return make(.reset, "the server closed the connection before the response was complete (\(error)); nothing of it was landed")
        }
        if let channel = error as? ChannelError, channel == .ioOnClosedChannel || channel == .eof {
            return make(.reset, "the connection was closed before the response was complete; nothing of it was landed")
        }
        if error is NIOConnectionError || String(describing: type(of: error)).contains("Resolution") {
            return make(.unreachable, "the host name does not resolve (\(error)); check the base_url")
        }
        return make(.reset, "the exchange failed: \(error)")
    }

    /// A TLS handshake failure in one line that says what to do, or nil when `error` is not one.
    static func tlsProblem(_ error: any Error, address: String) -> String? {
        let text: String
        switch error {
        case let ssl as NIOSSLError: text = "\(ssl)"
        case let extra as NIOSSLExtraError: text = "\(extra)"
        // With TLS 1.3 a server refuses a client certificate after the handshake, in an alert.
        case let boring as BoringSSLError: text = "\(boring)"
        default: return nil
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "the server's certificate at \(address) is not trusted (no known authority issued it); give its CA's certificate "
                + "(PEM) with the service's tls.ca_file, or in SSL_CERT_FILE"
        }
        if text.lowercased().contains("hostname") {
            return "the server's certificate at \(address) is not for that host name; check the base_url's host"
        }
        if text.contains("CERTIFICATE_REQUIRED") || text.contains("HANDSHAKE_FAILURE") || text.contains("UNKNOWN_CA")
            || text.contains("BAD_CERTIFICATE")
        {
            return "the server at \(address) refused the TLS handshake: it asks for a client certificate it trusts; "
                + "give one with the service's tls.client_cert and tls.client_key"
        }
        let reason = text.split(separator: "[").last.map { String($0.prefix { $0 != "]" }) } ?? text
        return "the TLS handshake with \(address) failed (\(reason)); check the service's tls settings and the server's certificate"
    }
}
