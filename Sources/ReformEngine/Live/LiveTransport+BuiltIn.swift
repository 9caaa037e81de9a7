import ReformSDK

extension LiveTransport {
    /// Methods that may be sent again when a reused keep-alive connection turns out closed.
    private static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]
    /// The longest wait for a connection to open, as AsyncHTTPClient is configured.
    private static let connectSeconds = 10.0

    /// Sends `request` to `target` through the built-in HTTP/1.1 client, following redirects; one
    /// deadline covers the whole exchange, redirects included.
    func sendBuiltIn(_ request: HTTPRequest, to target: HTTP1Target, for manager: ManagerRef) async throws(TransportError)
        -> HTTPResponse
    {
        let shown = "\(request.method) \(request.path)"
        let seconds = request.timeout ?? 60
        let deadline = Deadline.after(seconds: seconds)
        var current = request
        var currentTarget = target
        // The URL is built only when a redirect needs it.
        var url: String?
        var visited: Set<String> = []
        while true {
            let answer: HTTP1Response
            do {
                answer = try await exchange(current, to: currentTarget, deadline: deadline)
            } catch {
                throw error.transportError(
                    manager: manager.name, request: shown, host: currentTarget.host, port: currentTarget.port, seconds: seconds,
                    maxBodyBytes: maxBodyBytes)
            }
            let location = HTTP1ResponseReader.headerValue("location", in: answer.headers)
            let currentURL = url ?? request.url
            guard (300..<400).contains(answer.status), location != nil,
                let next = HTTP1Redirect.next(status: answer.status, location: location, after: current, at: currentURL)
            else {
                return LiveTransport.response(status: answer.status, headers: answer.headers, bytes: answer.body)
            }
            if visited.isEmpty { visited.insert("\(request.method) \(currentURL)") }
            let nextURL = next.url
            guard visited.count <= HTTP1Redirect.limit else {
                throw TransportError(
                    .invalidRequest, manager: manager.name, request: shown,
                    message: "more than \(HTTP1Redirect.limit) redirects (the last to \(nextURL)); point the base_url or path at the final address")
            }
            guard visited.insert("\(next.method) \(nextURL)").inserted else {
                throw TransportError(
                    .invalidRequest, manager: manager.name, request: shown,
                    message: "redirect loop: \(currentURL) sends back to \(nextURL); check the base_url and path")
            }
            guard let nextTarget = HTTP1Target(url: nextURL) else {
                // https (or a URL the built-in client does not send): AsyncHTTPClient takes over.
                var rest = next
                rest.timeout = Double(deadline.pollMilliseconds) / 1000
                return try await sendWithAsyncHTTPClient(rest, for: manager)
            }
            current = next
            currentTarget = nextTarget
            url = nextURL
        }
    }

    /// One request and its response on a pooled connection; a reused connection the server had
    /// already closed is replaced by a new one once, for an idempotent method.
    private func exchange(_ request: HTTPRequest, to target: HTTP1Target, deadline: Deadline) async throws(HTTP1Failure)
        -> HTTP1Response
    {
        let bytes = try HTTP1RequestHead.bytes(method: request.method, target: target, headers: request.headers, body: request.body)
        var connection = HTTP1Pool.shared.connection(to: target)
        while true {
            let reused = connection.served > 0
            let result = await connection.exchange(
                bytes, method: request.method, deadline: deadline, connectSeconds: LiveTransport.connectSeconds,
                maxBodyBytes: maxBodyBytes)
            switch result {
            case .success(let response):
                if response.keepAlive && connection.isReusable {
                    HTTP1Pool.shared.giveBack(connection)
                } else {
                    connection.close()
                }
                return response
            case .failure(let failure):
                connection.close()
                guard reused, failure.isStaleConnection, LiveTransport.idempotentMethods.contains(request.method),
                    !Task.isCancelled
                else { throw failure }
                connection = HTTP1Connection(to: target)
            }
        }
    }
}
