import ReformHTTP1

extension HTTP1Failure {
    /// The transport failure a manager sees, with advice.
    func transportError(manager: String, request: String, host: String, port: Int, seconds: Double, maxBodyBytes: Int)
        -> TransportError
    {
        func make(_ kind: TransportError.Kind, _ message: String) -> TransportError {
            TransportError(kind, manager: manager, request: request, message: message)
        }
        switch self {
        case .timeout:
            return make(.timeout, "no complete answer within \(seconds) s; raise the 'timeout' or retry on timeout")
        case .cancelled:
            return make(.cancelled, "cancelled")
        case .unresolvable(let reason):
            return make(.unreachable, "the host name '\(host)' does not resolve (\(reason)); check the base_url")
        case .connectTimeout(let limit):
            return make(
                .timeout,
                "could not connect to \(host):\(port) within \(limit) s (the connect timeout, or the request's 'timeout' if shorter); "
                    + "check the base_url and the network, or retry on timeout")
        case .refused:
            return make(.unreachable, "connection refused by \(host):\(port); is the service running at its base_url? (or use --env)")
        case .connect(let reason):
            return make(.unreachable, "cannot connect to \(host):\(port) (\(reason)); check the base_url and the network")
        case .closed(_, reset: true):
            return make(.reset, "the connection was reset; nothing of the response was landed")
        case .closed(_, reset: false):
            return make(.reset, "the server closed the connection before the response was complete; nothing of it was landed")
        case .malformed(let what):
            return make(.reset, "the server's answer is not valid HTTP/1.1 (\(what)); nothing of it was landed")
        case .tooLarge:
            return make(
                .tooLarge,
                "the body is larger than \(maxBodyBytes) bytes; nothing of it was landed (raise the limit with --max-body-bytes)")
        case .invalidRequest(let what):
            return make(.invalidRequest, what)
        case .bodyNotStored(let why):
            return make(.notStored, why)
        case .tls(let problem):
            return make(problem.isSettings ? .invalidRequest : .unreachable, problem.advice(address: "\(host):\(port)"))
        }
    }
}

extension TLSProblem {
    /// Whether the service's own settings are at fault (its files), not the connection.
    var isSettings: Bool {
        if case .files = self { return true }
        return false
    }

    /// The problem in one line that says what to do, the server named by `address`.
    func advice(address: String) -> String {
        switch self {
        case .untrusted(let issuer, let reason):
            return "the server's certificate at \(address) is not trusted (issued by \(issuer): \(reason)); give its CA's certificate "
                + "(PEM) with the service's tls.ca_file, or in SSL_CERT_FILE"
        case .wrongName(let reason):
            return "the server's certificate at \(address) is not for that host name (\(reason)); check the base_url's host, "
                + "or name the one the certificate is for with the service's tls.server_name"
        case .clientCertificateRefused(let alert):
            return "the server at \(address) refused the TLS handshake (\(alert)): it asks for a client certificate it trusts; "
                + "give one with the service's tls.client_cert and tls.client_key"
        case .files(let what):
            return "the service's tls files cannot be used: \(what); check tls.ca_file, tls.client_cert and tls.client_key"
        case .handshake(let reason):
            return "the TLS handshake with \(address) failed (\(reason)); check the service's tls settings and the server's certificate"
        case .unavailable(let reason):
            return reason
        }
    }
}
