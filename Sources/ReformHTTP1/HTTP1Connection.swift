package import ReformConcurrency

/// One keep-alive connection of the built-in HTTP/1.1 client to one host and port (over TLS for
/// `https`), with the thread that does its blocking work. One exchange at a time: the pool hands a
/// connection to one request, which gives it back when the response is read, or closes it.
package final class HTTP1Connection: @unchecked Sendable {
    /// The host and port it connects to.
    package let target: HTTP1Target
    /// Where it was last given back to the pool (set by the pool).
    package var idleSince = Deadline(nanoseconds: 0)
    private let socket = HTTP1Socket()
    private let thread = ConnectionThread()
    /// Touched only by the exchange that holds the connection.
    private var inbox = HTTP1Inbox()
    private var connected = false
    /// How many exchanges it completed; a connection that served none is new.
    package private(set) var served = 0

    /// A connection to `target`'s host and port, connected on its first exchange.
    package init(to target: HTTP1Target) {
        self.target = target
    }

    /// Whether it may carry another request: connected, never aborted, and with nothing to read.
    package var isReusable: Bool { connected && !inbox.hasUnread && socket.isReusable }

    /// Sends `request` and reads the response: right here on a ``BlockingExecutor``'s thread, on
    /// the connection's own thread from anywhere else. Cancelling the task aborts the exchange and
    /// closes the connection (the server sees it go).
    /// The body of a response `sink` accepts goes there instead of memory.
    package func exchange(
        _ request: [UInt8], method: String, deadline: Deadline, connectSeconds: Double, maxBodyBytes: Int, sink: (any HTTP1BodySink)? = nil
    ) async -> Result<HTTP1Response, HTTP1Failure> {
        if BlockingExecutor.isCurrentThread {
            return await withTaskCancellationHandler {
                Result { () throws(HTTP1Failure) in
                    try exchangeHere(
                        request, method: method, deadline: deadline, connectSeconds: connectSeconds, maxBodyBytes: maxBodyBytes, sink: sink)
                }
            } onCancel: {
                socket.abort()
            }
        }
        // The result travels through a lock, not the continuation: ThreadSanitizer cannot see
        // the order a resumed continuation gives, and reported the connection's state (written
        // here on its thread, read by the task after) as races. A pthread lock it can see.
        let outcome = Guarded<Result<HTTP1Response, HTTP1Failure>?>(nil)
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let started = thread.run {
                    let result = Result { () throws(HTTP1Failure) in
                        try self.exchangeHere(
                            request, method: method, deadline: deadline, connectSeconds: connectSeconds,
                            maxBodyBytes: maxBodyBytes, sink: sink)
                    }
                    outcome.withLock { $0 = result }
                    continuation.resume()
                }
                if !started {
                    outcome.withLock {
                        $0 = .failure(
                            .connect(
                                "no thread could be started for the connection: the process is out of threads or memory "
                                    + "(check ulimit -u and ulimit -v, or lower the concurrency)"))
                    }
                    continuation.resume()
                }
            }
        } onCancel: {
            socket.abort()
        }
        return outcome.withLock { $0 } ?? .failure(.cancelled)
    }

    /// Closes the socket and ends the thread.
    package func close() {
        socket.close()
        thread.stop()
    }

    private func exchangeHere(
        _ request: [UInt8], method: String, deadline: Deadline, connectSeconds: Double, maxBodyBytes: Int, sink: (any HTTP1BodySink)?
    ) throws(HTTP1Failure) -> HTTP1Response {
        if !connected {
            let connectDeadline = Deadline.after(seconds: connectSeconds)
            try socket.connect(
                host: target.host, port: target.port, deadline: Deadline.earlier(deadline, connectDeadline),
                connectLimit: connectSeconds)
            if target.secure {
                // The handshake shares the connect's deadline: together they open the connection.
                try socket.startTLS(host: target.host, settings: target.tls, deadline: Deadline.earlier(deadline, connectDeadline))
            }
            connected = true
        }
        inbox.startResponse()
        try socket.send(request, deadline: deadline)
        let response = try HTTP1ResponseReader.read(
            &inbox, from: socket, method: method, deadline: deadline, maxBodyBytes: maxBodyBytes, sink: sink)
        served += 1
        return response
    }
}
