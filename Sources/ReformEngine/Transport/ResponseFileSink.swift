import ReformConcurrency
import ReformHTTP1
import ReformSDK

/// Writes a 2XX response's body to a ``ResponseFile`` as it arrives, inflated on the way when its
/// headers say it is compressed (``ContentDecoding``: the same codings a body in memory is
/// inflated from, checked the same: data cut short or damaged is refused). Whatever an earlier
/// attempt wrote is dropped when the next response starts.
///
/// Used from one exchange at a time (the connection's thread, or AsyncHTTPClient's task), which
/// the lock makes plain to the checker.
final class ResponseFileSink: HTTP1BodySink, @unchecked Sendable {
    let file: ResponseFile
    private let lock = ConditionLock()
    private var coding = ContentDecoding.Coding.identity
    private var inflater: Inflater?
    /// The first bytes, held until two have come when the coding waits for them to decide.
    private var undecided: StreamStart?
    private var written = 0
    /// Compressed bytes received (what came over the wire).
    private(set) var wireBytes = 0
    /// Why the body could not be stored, when it could not: the failure a manager sees.
    private(set) var failure: (kind: TransportError.Kind, message: String)?

    /// The longest wait for each next piece of the body.
    let idleSeconds: Double
    /// When the last piece came (or the response started), on the monotonic clock.
    private var lastPiece = MonotonicClock.now()

    /// A sink writing to `file`, waiting at most `idleSeconds` for each piece.
    init(file: ResponseFile, idleSeconds: Double) {
        self.file = file
        self.idleSeconds = idleSeconds
    }

    /// Seconds since the last piece came (or the response started).
    var idleFor: Double { lock.withLock { MonotonicClock.now() - lastPiece } }
    /// Whether a response's body is going to the file (its status was accepted).
    var isStoring: Bool { lock.withLock { storing } }
    private var storing = false

    func accepts(status: Int, headers: [HTTP1Field]) throws(HTTP1Failure) -> Bool {
        try lock.withLock { () throws(HTTP1Failure) -> Bool in
            guard (200..<300).contains(status) else { return false }
            storing = true
            failure = nil
            lastPiece = MonotonicClock.now()
            written = 0
            wireBytes = 0
            inflater = nil
            do throws(ResponseFileError) { try file.truncate() } catch { throw fail(.notStored, error.description) }
            do throws(ContentDecoding.Problem) {
                coding = try ContentDecoding.coding(of: headers.map { QueryItem(name: $0.name, value: $0.value) })
            } catch {
                throw fail(.undecodable, error.reason)
            }
            undecided = coding == .identity || coding == .gzip ? nil : StreamStart(count: 2)
            if coding == .gzip { inflater = try start(with: []) }
            return true
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTP1Failure) {
        try lock.withLock { () throws(HTTP1Failure) in
            wireBytes += bytes.count
            lastPiece = MonotonicClock.now()
            guard undecided?.isHolding == true else { return try take(bytes) }
            guard let start = undecided?.take(bytes) else { return }
            try takeStart(start)
        }
    }

    func finish() throws(HTTP1Failure) {
        try lock.withLock { () throws(HTTP1Failure) in
            // A body of one byte: too short to be compressed.
            if let start = undecided?.end(), !start.isEmpty { try takeStart(start) }
            // An empty body is no compressed data cut short: it is empty, as one held in memory.
            guard wireBytes > 0 else { return }
            do throws(ContentDecoding.Problem) { try inflater?.finish() } catch {
                // zlib data cut short that is raw deflate read whole.
                if retryAsRawDeflate(), (try? inflater?.finish()) != nil { return }
                throw fail(.undecodable, error.reason + "; nothing of it was landed")
            }
        }
    }

    /// Takes the body's first bytes, which decide its inflater.
    private func takeStart(_ start: [UInt8]) throws(HTTP1Failure) {
        inflater = try self.start(with: start)
        // Raw deflate data can start with two bytes that read as a zlib header: until the zlib
        // reading has written something, the bytes are kept to read again as raw deflate.
        zlibGuess = coding == .deflate && ContentDecoding.Coding.hasZlibHeader(start) ? [] : nil
        let fed = start.withUnsafeBytes { start in Result { () throws(HTTP1Failure) in try take(start) } }
        try fed.get()
    }

    /// The wire bytes of a `deflate` body read as zlib data, kept while nothing was written (and
    /// at most 1 MiB of them) in case it is raw deflate after all, as a body in memory is retried.
    private var zlibGuess: [UInt8]?

    /// Reads the kept bytes again as raw deflate, when the zlib reading of them failed before
    /// writing anything; `false` when there is nothing to go back to.
    private func retryAsRawDeflate() -> Bool {
        guard let kept = zlibGuess, written == 0, let raw = try? Inflater(raw: true) else { return false }
        zlibGuess = nil
        inflater = raw
        let fed = kept.withUnsafeBytes { kept in Result { () throws(HTTP1Failure) in try take(kept) } }
        if case .failure = fed { return false }
        return true
    }

    /// The failure of a download that stopped coming: no byte for ``idleSeconds``.
    func stalled(manager: String, request: String) -> TransportError {
        let received = lock.withLock { wireBytes }
        return TransportError(
            .timeout, manager: manager, request: request,
            message: "the download stopped: no data for \(idleSeconds.clean) s after \(received) bytes (the 'timeout' bounds each "
                + "wait for the next piece of a file, not the whole file); nothing of it was landed")
    }

    /// The inflater for a body starting with `start`.
    private func start(with start: [UInt8]) throws(HTTP1Failure) -> Inflater? {
        do throws(ContentDecoding.Problem) { return try coding.inflater(start: start) } catch { throw fail(.undecodable, error.reason) }
    }

    /// Takes wire bytes: inflated into the file, or stored as they are.
    private func take(_ bytes: UnsafeRawBufferPointer) throws(HTTP1Failure) {
        guard let inflater else { return try store(bytes) }
        if var kept = zlibGuess {
            kept.append(contentsOf: bytes)
            zlibGuess = kept.count <= 1 << 20 ? kept : nil
        }
        do throws(ContentDecoding.Problem) {
            try inflater.feed(bytes) { piece throws(ContentDecoding.Problem) in
                do throws(HTTP1Failure) { try store(piece) } catch { throw .undecodable("") }
            }
            if written > 0 { zlibGuess = nil }
        } catch {
            if failure != nil { throw .bodyNotStored(failure?.message ?? "") }
            if case .undecodable = error, retryAsRawDeflate() { return }
            throw fail(.undecodable, error.reason + "; nothing of it was landed")
        }
    }

    private func store(_ bytes: UnsafeRawBufferPointer) throws(HTTP1Failure) {
        do throws(ResponseFileError) { try file.write(bytes, at: written) } catch { throw fail(.notStored, error.description) }
        written += bytes.count
    }

    private func fail(_ kind: TransportError.Kind, _ message: String) -> HTTP1Failure {
        failure = (kind, message)
        return .bodyNotStored(message)
    }
}

extension ContentDecoding.Problem {
    /// What is wrong, in words.
    var reason: String {
        switch self {
        case .tooLarge: "it inflates past the limit"
        case .undecodable(let reason): reason
        }
    }
}
