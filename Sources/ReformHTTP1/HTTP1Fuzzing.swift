import ReformConcurrency
import ReformSystem

/// Entry points for the `FuzzHTTPResponse` libFuzzer target (`Fuzz/`): the built-in HTTP/1.1
/// client's parts driven with arbitrary bytes, through the same code a live request runs.
/// Not API: `package` keeps it inside this package.
package enum HTTP1Fuzzing {
    /// What reading a response produced: the status and body size, or the failure.
    package enum Outcome: Equatable {
        /// A response: its status, how many body bytes, whether the connection could be reused.
        case response(status: Int, bodyBytes: Int, keepAlive: Bool)
        /// The reader refused or could not finish it (why, as the client would report it).
        case failure(String)
    }

    /// Reads `bytes` as a server's answer to a `method` request, over a real socket pair (the
    /// bytes written to one end, which is then shut down), with a body limit of `maxBodyBytes`.
    package static func readResponse(_ bytes: [UInt8], method: String, maxBodyBytes: Int = 1 << 20) -> Outcome {
        guard let (reading, writing) = Sockets.openPair() else { return .failure("socketpair failed") }
        let socket = HTTP1Socket(adopting: reading)
        defer { socket.close() }
        let written = bytes.withUnsafeBytes { Sockets.send(writing, $0.baseAddress, bytes.count) }
        ReformSystem.close(writing)
        guard written == bytes.count else { return .failure("the socket pair took \(written) of \(bytes.count) bytes") }
        var inbox = HTTP1Inbox()
        inbox.startResponse()
        do {
            let response = try HTTP1ResponseReader.read(
                &inbox, from: socket, method: method, deadline: Deadline.after(seconds: 5), maxBodyBytes: maxBodyBytes)
            return .response(status: response.status, bodyBytes: response.body.count, keepAlive: response.keepAlive)
        } catch {
            return .failure("\(error)")
        }
    }

    /// The host, port and request target the client would send for `url`, or `nil` when the
    /// built-in client does not take it.
    package static func target(of url: String) -> (host: String, port: Int, hostHeader: String, requestTarget: String)? {
        HTTP1Target(url: url).map { ($0.host, $0.port, $0.hostHeader, $0.requestTarget) }
    }
}
