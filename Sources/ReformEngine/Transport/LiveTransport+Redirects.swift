import ReformConcurrency
import ReformHTTP1
import ReformSDK

extension LiveTransport {
    /// Sends `request` and follows redirects (``Redirects``) through either client, at most
    /// ``Redirects/limit``, within one deadline for the whole exchange; a loop is an error.
    func sendFollowingRedirects(_ request: HTTPRequest, for manager: ManagerRef) async throws(TransportError) -> HTTPResponse {
        let shown = "\(request.method) \(request.path)"
        let seconds = request.timeout ?? 60
        let deadline = Deadline.after(seconds: seconds)
        var current = request
        // The URL is built only when a redirect needs it.
        var url: String?
        var visited: Set<String> = []
        while true {
            let answer = try await sendOnce(current, for: manager, shown: shown, seconds: seconds)
            guard (300..<400).contains(answer.status), let location = answer.header("location") else { return answer }
            let currentURL = url ?? request.url
            guard var next = Redirects.next(status: answer.status, location: location, after: current, at: currentURL) else {
                return answer
            }
            if visited.isEmpty { visited.insert("\(request.method) \(currentURL)") }
            let nextURL = next.url
            guard visited.count <= Redirects.limit else {
                throw TransportError(
                    .invalidRequest, manager: manager.name, request: shown,
                    message:
                        "more than \(Redirects.limit) redirects (the last to \(nextURL)); point the base_url or path at the final address")
            }
            guard visited.insert("\(next.method) \(nextURL)").inserted else {
                throw TransportError(
                    .invalidRequest, manager: manager.name, request: shown,
                    message: "redirect loop: \(currentURL) sends back to \(nextURL); check the base_url and path")
            }
            let left = Double(deadline.pollMilliseconds) / 1000
            guard left > 0 else {
                throw TransportError(
                    .timeout, manager: manager.name, request: shown,
                    message: "no complete answer within \(seconds) s; raise the 'timeout' or retry on timeout")
            }
            next.timeout = left
            current = next
            url = nextURL
        }
    }

    /// One exchange, no redirects: the built-in client for `http://` and `https://` (unless
    /// ``client`` says otherwise, a proxy is to be used, or for `https` the system OpenSSL cannot
    /// be loaded), AsyncHTTPClient for the rest.
    private func sendOnce(_ request: HTTPRequest, for manager: ManagerRef, shown: String, seconds: Double)
        async throws(TransportError) -> HTTPResponse
    {
        let proxy = ProxyChoice.forURL(request.url, service: request.proxy)
        if client == .builtIn, proxy == nil, let target = HTTP1Target(request: request), !target.secure || HTTP1TLS.isAvailable {
            return try await sendBuiltIn(request, to: target, for: manager, shown: shown, seconds: seconds)
        }
        if let name = request.tls?.serverName {
            throw TransportError(
                .invalidRequest, manager: manager.name, request: shown,
                message: "tls.server_name '\(name)' is honoured by the built-in client only, which "
                    + (proxy != nil ? "does not go through a proxy; set NO_PROXY for this host" : "needs the system OpenSSL (libssl3)"))
        }
        return try await sendWithAsyncHTTPClient(request, through: proxy, for: manager, shown: shown, seconds: seconds)
    }
}
