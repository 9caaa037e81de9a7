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
                throw fail(.undecodable, error.reason + "; nothing of it was landed")
            }
        }
    }

    /// Takes the body's first bytes, which decide its inflater.
    private func takeStart(_ start: [UInt8]) throws(HTTP1Failure) {
        inflater = try self.start(with: start)
        let fed = start.withUnsafeBytes { start in Result { () throws(HTTP1Failure) in try take(start) } }
        try fed.get()
    }

    /// The inflater for a body starting with `start`.
    private func start(with start: [UInt8]) throws(HTTP1Failure) -> Inflater? {
        do throws(ContentDecoding.Problem) { return try coding.inflater(start: start) } catch { throw fail(.undecodable, error.reason) }
    }

    /// Takes wire bytes: inflated into the file, or stored as they are.
    private func take(_ bytes: UnsafeRawBufferPointer) throws(HTTP1Failure) {
        guard let inflater else { return try store(bytes) }
        do throws(ContentDecoding.Problem) {
            try inflater.feed(bytes) { piece throws(ContentDecoding.Problem) in
                do throws(HTTP1Failure) { try store(piece) } catch { throw .undecodable("") }
            }
        } catch {
            if failure != nil { throw .bodyNotStored(failure?.message ?? "") }
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
