import ReformConcurrency
import ReformHTTP1
import ReformSDK

extension LiveTransport {
    /// Methods that may be sent again when a reused keep-alive connection turns out closed.
    private static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]
    /// The longest wait for a connection to open, as AsyncHTTPClient is configured.
    private static let connectSeconds = 10.0

    /// Sends `request` to `target` through the built-in HTTP/1.1 client, one exchange (no
    /// redirects) within `request.timeout`; errors show `shown` and the configured `seconds`.
    func sendBuiltIn(_ request: HTTPRequest, to target: HTTP1Target, for manager: ManagerRef, shown: String, seconds: Double)
        async throws(TransportError) -> HTTPResponse
    {
        let deadline = Deadline.after(seconds: request.timeout ?? seconds)
        let answer: HTTP1Response
        // Each piece of a body going to a file within the configured timeout: after a redirect,
        // `request.timeout` is only what is left of the first hop's.
        let sink = request.responseFile.map { ResponseFileSink(file: $0, idleSeconds: seconds) }
        do { answer = try await exchange(request, to: target, deadline: deadline, sink: sink) } catch {
            if case .bodyNotStored = error, let sink, let failure = sink.failure {
                throw TransportError(failure.kind, manager: manager.name, request: shown, message: failure.message)
            }
            if error == .timeout, let sink, sink.isStoring { throw sink.stalled(manager: manager.name, request: shown) }
            throw error.transportError(
                manager: manager.name, request: shown, host: target.host, port: target.port, seconds: seconds,
                maxBodyBytes: maxBodyBytes)
        }
        let headers = answer.headers.map { QueryItem(name: $0.name, value: $0.value) }
        if let sink, (200..<300).contains(answer.status) {
            var response = HTTPResponse(status: answer.status, headers: headers, body: nil, byteCount: sink.wireBytes)
            response.bodyFile = sink.file
            return response
        }
        return try response(
            status: answer.status, headers: headers, wire: answer.body,
            for: manager, shown: shown)
    }

    /// One request and its response on a pooled connection; a reused connection the server had
    /// already closed is replaced by a new one once, for an idempotent method.
    private func exchange(_ request: HTTPRequest, to target: HTTP1Target, deadline: Deadline, sink: ResponseFileSink?)
        async throws(HTTP1Failure) -> HTTP1Response
    {
        let bytes = try HTTP1RequestHead.bytes(
            method: request.method, target: target, headers: request.headers.map { HTTP1Field(name: $0.name, value: $0.value) },
            body: request.body)
        var connection = HTTP1Pool.shared.connection(to: target)
        while true {
            let reused = connection.served > 0
            let result = await connection.exchange(
                bytes, method: request.method, deadline: deadline, connectSeconds: LiveTransport.connectSeconds,
                maxBodyBytes: maxBodyBytes, sink: sink)
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
