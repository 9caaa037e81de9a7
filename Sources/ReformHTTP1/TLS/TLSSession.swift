import ReformConcurrency

/// One TLS connection over an ``HTTP1Socket``: OpenSSL works on two memory buffers, and the bytes
/// between them and the network go through the socket's own non-blocking `send` and `recv`. So
/// every wait keeps the exchange's deadline and ``HTTP1Socket/abort()``, and a write to a server that
/// has gone never raises SIGPIPE (OpenSSL's own socket writes would, and SIGPIPE ends `reform`).
final class TLSSession {
    private let library: OpenSSL
    private let context: TLSContext
    private let ssl: OpaquePointer
    /// What the network gave, for OpenSSL to read; what OpenSSL wrote, for the network.
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private var sendBuffer = [UInt8](repeating: 0, count: 32 << 10)
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    /// What the socket gave last, before OpenSSL reads it.
    private var received: [UInt8] = []
    /// Whether any response bytes came on this session.
    private var answered = false

    /// What OpenSSL's callbacks saw during a session's handshake, by the session's `SSL *`: the
    /// issuer of a certificate that failed verification (the peer certificate is not kept then),
    /// and whether the server asked for a client certificate.
    private struct Seen {
        var refusedIssuer: String?
        var certificateAsked = false
    }

    private static let seen = Guarded<[UInt: Seen]>([:])

    private var key: UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(ssl))) }

    /// SSL_CTX_set_verify's callback: keeps the issuer of the certificate that failed, and the verdict.
    static let noteRefusedCertificate: OpenSSL.VerifyCallback = { verdict, store in
        guard verdict == 0, case .success(let library) = OpenSSL.shared,
            let session = library.storeData(store, library.storeSessionIndex())
        else { return verdict }
        let issuer = library.storeCurrentCertificate(store).flatMap { TLSSession.issuer(of: $0, library: library) }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(session)))
        TLSSession.seen.withLock { seen in
            if seen[key, default: Seen()].refusedIssuer == nil { seen[key, default: Seen()].refusedIssuer = issuer }
        }
        return verdict
    }

    /// SSL_CTX_set_cert_cb's callback, called on a client when the server asks for a certificate:
    /// notes that it did (the configured one, if any, is then sent as usual).
    static let noteCertificateAsked: OpenSSL.CertificateCallback = { session, _ in
        let key = UInt(bitPattern: Int(bitPattern: session.map { UnsafeRawPointer($0) }))
        TLSSession.seen.withLock { $0[key, default: Seen()].certificateAsked = true }
        return 1
    }

    /// A session to `host` (verified against `settings.serverName` when given, else `host`).
    init(host: String, settings: HTTP1TLS) throws(TLSProblem) {
        context = try settings.context()
        library = context.library
        guard let ssl = library.new(context.pointer) else {
            throw .handshake("no TLS session could be made: \(context.library.lastError())")
        }
        guard let incoming = library.bioNew(library.memoryMethod()), let outgoing = library.bioNew(library.memoryMethod()) else {
            library.free(ssl)
            throw .handshake("no TLS buffers could be made (out of memory): \(context.library.lastError())")
        }
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
        // The session owns both buffers from here (SSL_free frees them).
        library.setBIO(ssl, incoming, outgoing)
        let name = settings.serverName ?? host
        if TLSSession.isAddress(name) {
            _ = library.setIPAddress(library.verifyParameters(ssl), name)
        } else {
            // SNI is for names only (RFC 6066); an address is verified as an address.
            _ = name.withCString { library.control(ssl, OpenSSL.setServerName, 0, UnsafeMutableRawPointer(mutating: $0)) }
            _ = library.setHost(ssl, name)
        }
    }

    deinit {
        TLSSession.seen.withLock { $0[key] = nil }
        library.free(ssl)
    }

    /// Shakes hands with the server over `socket` by `deadline`.
    func handshake(over socket: HTTP1Socket, deadline: Deadline) throws(HTTP1Failure) {
        guard try drive(over: socket, deadline: deadline, { library.connect(ssl) }) > 0 else {
            throw .closed(receivedNothing: true, reset: false)
        }
    }

    /// Sends all of `bytes` (encrypted) by `deadline`.
    func send(_ bytes: [UInt8], over socket: HTTP1Socket, deadline: Deadline) throws(HTTP1Failure) {
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, Int(Int32.max))
            let written = bytes.withUnsafeBytes { raw in
                Result { () throws(HTTP1Failure) in
                    try drive(over: socket, deadline: deadline) { library.write(ssl, raw.baseAddress.map { $0 + offset }, Int32(chunk)) }
                }
            }
            let count: Int32
            do { count = try written.get() } catch { throw refusal(error) }
            // A write the server closed the connection under is a failure, not progress.
            guard count > 0 else { throw .closed(receivedNothing: true, reset: false) }
            offset += Int(count)
        }
    }

    /// Reads what has arrived (decrypted), waiting for it by `deadline`, and appends it to
    /// `buffer`; returns how many bytes came (0: the server closed its side).
    func receive(into buffer: inout [UInt8], over socket: HTTP1Socket, deadline: Deadline) throws(HTTP1Failure) -> Int {
        let read = readBuffer.withUnsafeMutableBytes { raw in
            Result { () throws(HTTP1Failure) in
                try drive(over: socket, deadline: deadline) { library.read(ssl, raw.baseAddress, Int32(raw.count)) }
            }
        }
        let count: Int32
        do { count = try read.get() } catch { throw refusal(error) }
        if count == 0, case .tls(let problem) = refusal(.closed(receivedNothing: true, reset: false)) { throw .tls(problem) }
        answered = answered || count > 0
        buffer.append(contentsOf: readBuffer[0..<Int(count)])
        return Int(count)
    }

    /// Runs `operation` until it gets somewhere: sends what it wrote for the network, feeds it
    /// what the network gives when it asks for more. Returns its positive result, or 0 when the
    /// server closed the connection.
    private func drive(over socket: HTTP1Socket, deadline: Deadline, _ operation: () -> Int32) throws(HTTP1Failure) -> Int32 {
        while true {
            library.errorClear()
            let result = operation()
            let code = result > 0 ? 0 : library.error(ssl, result)
            try flush(over: socket, deadline: deadline)
            if result > 0 { return result }
            switch code {
            case OpenSSL.errorWantRead:
                received.removeAll(keepingCapacity: true)
                guard try socket.receiveRaw(into: &received, deadline: deadline) > 0 else { return 0 }
                _ = received.withUnsafeBytes { library.bioWrite(incoming, $0.baseAddress, Int32($0.count)) }
            case OpenSSL.errorWantWrite:
                continue
            case OpenSSL.errorZeroReturn:
                return 0
            case OpenSSL.errorSyscall:
                // Memory buffers make no system calls: the stream ended where it should not have.
                return 0
            default:
                throw .tls(problem())
            }
        }
    }

    /// Sends what OpenSSL has written for the network.
    private func flush(over socket: HTTP1Socket, deadline: Deadline) throws(HTTP1Failure) {
        while library.bioPending(outgoing) > 0 {
            let count = sendBuffer.withUnsafeMutableBytes { library.bioRead(outgoing, $0.baseAddress, Int32($0.count)) }
            guard count > 0 else { return }
            try socket.sendRaw(sendBuffer[0..<Int(count)], deadline: deadline)
        }
    }

    /// `failure`, or a refused client certificate when that is what it means: the server asked
    /// for a certificate during the handshake, then hung up before any answer. With TLS 1.3 a
    /// server checks the certificate after the client's side of the handshake is done, and its
    /// alert may never be read (the hang-up resets the connection first).
    private func refusal(_ failure: HTTP1Failure) -> HTTP1Failure {
        guard case .closed = failure, !answered, TLSSession.seen.withLock({ $0[key]?.certificateAsked ?? false }) else {
            return failure
        }
        return .tls(.clientCertificateRefused("it asked for a client certificate, then hung up"))
    }

    /// What went wrong, from the certificate check or the error queue.
    private func problem() -> TLSProblem {
        let reason = library.lastError()
        let verdict = library.verifyResult(ssl)
        if verdict == OpenSSL.hostnameMismatch || verdict == OpenSSL.addressMismatch {
            return .wrongName(verifyText(verdict))
        }
        if verdict != 0 {
            let seen = TLSSession.seen.withLock { $0[key]?.refusedIssuer }
            return .untrusted(issuer: seen ?? "an unknown issuer", reason: verifyText(verdict))
        }
        let lowered = reason.lowercased()
        if lowered.contains("certificate required") || lowered.contains("handshake failure") || lowered.contains("unknown ca")
            || lowered.contains("bad certificate")
        {
            return .clientCertificateRefused(reason)
        }
        return .handshake(reason.isEmpty ? "the server ended the handshake" : reason)
    }

    private func verifyText(_ verdict: Int) -> String {
        library.verifyErrorText(verdict).map { String(cString: $0) } ?? "error \(verdict)"
    }

    /// The issuer of `certificate` (`CN=Reform Test CA`), its fields comma-separated.
    private static func issuer(of certificate: OpaquePointer, library: OpenSSL) -> String? {
        var text = [CChar](repeating: 0, count: 512)
        guard library.nameLine(library.issuerName(certificate), &text, Int32(text.count)) != nil else { return nil }
        // `/C=…/O=…/CN=…`: the fields, comma-separated, as people read them.
        let line = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return line.split(separator: "/").joined(separator: ", ")
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    static func isAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0 == "." || ($0.isASCII && $0.isNumber) })
    }
}
