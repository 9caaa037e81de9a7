import ReformConcurrency
import ReformSystem

/// A non-blocking TCP socket whose every wait is bounded by a deadline and can be cut short from
/// another thread with ``abort()`` (which also tells the server the connection is gone).
final class HTTP1Socket: @unchecked Sendable {
    private struct State {
        var descriptor: Int32 = -1
        var aborted = false
    }

    /// The descriptor and the abort flag, shared with the thread that may abort.
    private let state = Guarded(State())

    /// Whether ``abort()`` was called.
    var isAborted: Bool { state.withLock { $0.aborted } }

    /// Where `recv` writes before the bytes are appended to the caller's buffer.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)

    /// An unconnected socket.
    init() {}

    /// A socket around `descriptor`, already connected and non-blocking (a socket pair's end).
    init(adopting descriptor: Int32) {
        state.withLock { $0.descriptor = descriptor }
    }

    deinit {
        close()
        scratch.deallocate()
    }

    /// Connects to `host`:`port` by `deadline`, trying each address in turn, each with an equal
    /// share of the time left (a black-holed IPv6 address does not use it all); `connectLimit` is
    /// the connect timeout's seconds, for the message when none answers in time.
    ///
    /// The name lookup (`getaddrinfo`) blocks and cannot be cut short by the deadline or by
    /// ``abort()``; for a numeric address or a name in `/etc/hosts` it takes no time.
    func connect(host: String, port: Int, deadline: Deadline, connectLimit: Double) throws(HTTP1Failure) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Sockets.streamType
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            throw .unresolvable(reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [addrinfo] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let address = next {
            addresses.append(address.pointee)
            next = address.pointee.ai_next
        }
        var failures: [HTTP1Failure] = []
        for (index, address) in addresses.enumerated() {
            if isAborted { throw .cancelled }
            guard !deadline.hasPassed else { break }
            let share = Double(deadline.pollMilliseconds) / 1000 / Double(addresses.count - index)
            do {
                try connect(to: address, deadline: Deadline.earlier(deadline, Deadline.after(seconds: share)))
                return
            } catch {
                if error == .cancelled { throw error }
                failures.append(error)
            }
        }
        // Refused everywhere says the most; then any other reason; a timeout only when all timed out.
        if failures.contains(.refused) { throw .refused }
        if let other = failures.first(where: { $0 != .timeout }) { throw other }
        throw .connectTimeout(seconds: connectLimit)
    }

    private func connect(to address: addrinfo, deadline: Deadline) throws(HTTP1Failure) {
        let descriptor = Sockets.open(family: address.ai_family, type: address.ai_socktype, protocol: address.ai_protocol)
        guard descriptor >= 0 else { throw .connect(String(cString: strerror(errno))) }
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        let adopted = state.withLock { state -> Bool in
            guard !state.aborted else { return false }
            state.descriptor = descriptor
            return true
        }
        guard adopted else {
            ReformSystem.close(descriptor)
            throw .cancelled
        }
        if ReformSystem.connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return }
        guard errno == EINPROGRESS else {
            let code = errno
            close()
            throw code == ECONNREFUSED ? .refused : .connect(String(cString: strerror(code)))
        }
        do { try wait(for: Int16(POLLOUT), deadline: deadline) } catch {
            close()
            throw error
        }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
        guard code == 0 else {
            close()
            if isAborted { throw .cancelled }
            throw code == ECONNREFUSED ? .refused : .connect(String(cString: strerror(code)))
        }
    }

    /// The TLS session over this socket, once ``startTLS(host:settings:deadline:)`` made one.
    private var tls: TLSSession?

    /// Shakes hands over the connected socket by `deadline`: from here on, ``send(_:deadline:)``
    /// and ``receive(into:deadline:)`` carry the bytes encrypted.
    func startTLS(host: String, settings: HTTP1TLS, deadline: Deadline) throws(HTTP1Failure) {
        let session: TLSSession
        do { session = try TLSSession(host: host, settings: settings) } catch { throw .tls(error) }
        try session.handshake(over: self, deadline: deadline)
        tls = session
    }

    /// Sends every byte of `bytes` by `deadline` (encrypted, on a TLS connection).
    func send(_ bytes: [UInt8], deadline: Deadline) throws(HTTP1Failure) {
        if let tls { return try tls.send(bytes, over: self, deadline: deadline) }
        try sendRaw(bytes[...], deadline: deadline)
    }

    /// Receives what has arrived (waiting for it by `deadline`) and appends it to `buffer`,
    /// decrypted on a TLS connection; returns how many bytes came (0: the server closed its side).
    func receive(into buffer: inout [UInt8], deadline: Deadline) throws(HTTP1Failure) -> Int {
        if let tls { return try tls.receive(into: &buffer, over: self, deadline: deadline) }
        return try receiveRaw(into: &buffer, deadline: deadline)
    }

    /// Sends every byte of `bytes` as they are by `deadline`.
    func sendRaw(_ bytes: ArraySlice<UInt8>, deadline: Deadline) throws(HTTP1Failure) {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let sent = bytes.withUnsafeBytes { raw in
                Sockets.send(descriptor, raw.baseAddress.map { $0 + (offset - bytes.startIndex) }, bytes.endIndex - offset)
            }
            if sent > 0 {
                offset += sent
                continue
            }
            let code = errno
            if isAborted { throw .cancelled }
            if sent < 0, code == EAGAIN || code == EWOULDBLOCK || code == EINTR {
                try wait(for: Int16(POLLOUT), deadline: deadline)
                continue
            }
            throw .closed(receivedNothing: true, reset: code == ECONNRESET)
        }
    }

    /// Receives what has arrived as it came (waiting for it by `deadline`) and appends it to
    /// `buffer`; returns how many bytes came (0: the server closed its side).
    func receiveRaw(into buffer: inout [UInt8], deadline: Deadline) throws(HTTP1Failure) -> Int {
        // Checked before every read, not only when one has to wait: bytes that never stop coming
        // (endless chunks or trailers) never wait (audit r2 H5, D14).
        if deadline.hasPassed { throw .timeout }
        while true {
            let received = recv(descriptor, scratch.baseAddress, scratch.count, 0)
            let code = errno
            if isAborted { throw .cancelled }
            if received > 0 {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<received]))
                return received
            }
            if received == 0 { return 0 }
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR {
                try wait(for: Int16(POLLIN), deadline: deadline)
                continue
            }
            throw .closed(receivedNothing: false, reset: code == ECONNRESET)
        }
    }

    /// Whether an idle connection may still be used: nothing to read (a readable idle socket has
    /// been closed by the server, or holds bytes nobody asked for) and no error.
    var isReusable: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return !isAborted && descriptor >= 0 && poll(&entry, 1, 0) == 0
    }

    /// Cuts the connection from any thread: shuts it down (the server sees it closed) and makes
    /// every wait on it end with ``HTTP1Failure/cancelled``.
    func abort() {
        state.withLock { state in
            state.aborted = true
            if state.descriptor >= 0 { shutdown(state.descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the descriptor (idempotent).
    func close() {
        state.withLock { state in
            if state.descriptor >= 0 { ReformSystem.close(state.descriptor) }
            state.descriptor = -1
        }
    }

    private var descriptor: Int32 { state.withLock { $0.descriptor } }

    private func wait(for events: Int16, deadline: Deadline) throws(HTTP1Failure) {
        while true {
            if isAborted { throw .cancelled }
            let milliseconds = deadline.pollMilliseconds
            guard milliseconds > 0 else { throw .timeout }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw .closed(receivedNothing: false, reset: false) }
        }
    }
}
