import ReformConcurrency

/// The bytes a connection has received and not yet read, with the reads a response parser needs:
/// a line, a number of bytes, everything until the server closes. Each read waits on the socket
/// for more when the bytes at hand do not finish it.
struct HTTP1Inbox {
    /// Received bytes; those before `position` are read.
    private var bytes: [UInt8] = []
    private var position = 0
    /// Where the search for the next line feed resumes (bytes before it hold none).
    private var scanned = 0
    /// Whether any byte of the current response has arrived.
    private(set) var receivedAny = false

    /// An empty inbox.
    init() {}

    /// Forgets what was read and marks the start of a new response.
    mutating func startResponse() {
        compact()
        receivedAny = position < bytes.count
    }

    /// Whether unread bytes are waiting (a server that sent more than one response).
    var hasUnread: Bool { position < bytes.count }

    /// The next line without its line ending (CRLF or a bare LF), at most `limit` bytes.
    mutating func line(from socket: HTTP1Socket, deadline: Deadline, limit: Int) throws(HTTP1Failure) -> ArraySlice<UInt8> {
        while true {
            if let feed = bytes[max(position, scanned)...].firstIndex(of: 0x0A) {
                var end = feed
                if end > position, bytes[end - 1] == 0x0D { end -= 1 }
                let line = bytes[position..<end]
                position = feed + 1
                scanned = position
                return line
            }
            scanned = bytes.count
            if bytes.count - position > limit {
                throw .malformed("a line of the response head is longer than \(limit) bytes")
            }
            try fill(from: socket, deadline: deadline)
        }
    }

    /// The next `count` bytes, handed to `deliver` a piece at a time (what is at hand, then each
    /// read), never copied into a buffer of their own; each read waits until `deadline()`.
    mutating func take(
        _ count: Int, from socket: HTTP1Socket, deadline: () -> Deadline, to deliver: (ArraySlice<UInt8>) throws(HTTP1Failure) -> Void
    ) throws(HTTP1Failure) {
        var missing = count
        while missing > 0 {
            if position == bytes.count { try fill(from: socket, deadline: deadline()) }
            let chunk = min(missing, bytes.count - position)
            try deliver(bytes[position..<(position + chunk)])
            position += chunk
            missing -= chunk
        }
        scanned = position
    }

    /// Everything until the server closes the connection, handed to `deliver` a piece at a time.
    mutating func takeUntilClosed(
        from socket: HTTP1Socket, deadline: () -> Deadline, to deliver: (ArraySlice<UInt8>) throws(HTTP1Failure) -> Void
    ) throws(HTTP1Failure) {
        while true {
            if position < bytes.count { try deliver(bytes[position...]) }
            position = bytes.count
            scanned = position
            compact()
            let received = try socket.receive(into: &bytes, deadline: deadline())
            if received == 0 { return }
            receivedAny = true
        }
    }

    private mutating func fill(from socket: HTTP1Socket, deadline: Deadline) throws(HTTP1Failure) {
        compact()
        let received: Int
        do { received = try socket.receive(into: &bytes, deadline: deadline) } catch {
            if case .closed(_, let reset) = error { throw .closed(receivedNothing: !receivedAny, reset: reset) }
            throw error
        }
        guard received > 0 else { throw .closed(receivedNothing: !receivedAny, reset: false) }
        receivedAny = true
    }

    /// Drops read bytes once they are a good part of the buffer.
    private mutating func compact() {
        if position == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            position = 0
            scanned = 0
        } else if position > 32 << 10 {
            bytes.removeFirst(position)
            scanned -= position
            position = 0
        }
    }
}
