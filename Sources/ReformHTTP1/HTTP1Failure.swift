/// Why an exchange on the built-in HTTP/1.1 client did not produce a response.
package enum HTTP1Failure: Error, Equatable {
    /// The deadline passed first.
    case timeout
    /// The exchange was aborted (its task was cancelled).
    case cancelled
    /// The host name has no address.
    case unresolvable(String)
    /// Nothing listens on any of the host's addresses.
    case refused
    /// No address of the host accepted the connection within the connect timeout (seconds).
    case connectTimeout(seconds: Double)
    /// Connecting failed for another reason (the system's words).
    case connect(String)
    /// The server closed or reset the connection before the response was complete;
    /// `receivedNothing` when not one byte of the response had arrived.
    case closed(receivedNothing: Bool, reset: Bool)
    /// What came back is not an HTTP/1.x response (what is wrong with it).
    case malformed(String)
    /// The body is larger than the limit.
    case tooLarge
    /// The request cannot be sent as it is (a header value with a line break, say).
    case invalidRequest(String)
    /// A body going to an ``HTTP1BodySink`` could not be stored there (why, in the sink's words).
    case bodyNotStored(String)
    /// The TLS connection could not be made or used (an `https://` target).
    case tls(TLSProblem)

    /// A failed exchange that did not reach the server, or that the server dropped unread, on a
    /// connection that had served requests before: sending again on a new connection is safe for
    /// an idempotent method (the server closed an idle keep-alive connection as it was reused).
    package var isStaleConnection: Bool {
        if case .closed(receivedNothing: true, _) = self { return true }
        return false
    }
}
