import CZlib
import ReformSystem

/// A file descriptor and the window of its bytes held in memory.
///
/// Bytes `start..<filled` of the buffer are read and not yet consumed. ``refill(maximumCapacity:)``
/// moves them to the front and reads more after them, growing the buffer only when the unconsumed
/// bytes fill it (one record longer than a chunk), up to a limit. A path ending in `.gz` is
/// decompressed as it is read (zlib's `gzread`, any number of gzip members), in constant memory.
struct InputFile: ~Copyable {
    let path: String
    /// What asks the run reading it to stop, checked once a chunk.
    var stop: StopToken = .process
    let descriptor: Int32
    let ownsDescriptor: Bool
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// The first unconsumed byte.
    var start = 0
    /// One past the last byte read.
    private(set) var filled = 0
    /// The input offset of `base[0]`.
    private(set) var bufferOffset = 0
    /// Whether the descriptor has reported the end of the input.
    private(set) var atEnd = false
    /// The zlib stream when the input is gzip-compressed.
    private let gzip: gzFile?
    /// Called after each read with ``bytesRead`` (for progress reports).
    var onRefill: ((Int) -> Void)?

    /// Bytes read from the file so far: compressed bytes for a `.gz` input.
    var bytesRead: Int {
        if let gzip { return Int(gzoffset(gzip)) }
        return bufferOffset + filled + bytesReadOutside
    }

    /// Bytes read with ``read(into:count:)``, past the buffer.
    private var bytesReadOutside = 0
    /// For a byte range: the offset from which the first newline ends what is read (the range's
    /// end less one), the offset of the next byte read, and whether that newline was read.
    private var rangeLimit: Int?
    private var position = 0
    private var rangeDone = false

    /// Reads up to `count` bytes into memory the caller owns instead of the buffer (a parallel
    /// run's batches); 0 at the end of the input.
    mutating func read(into pointer: UnsafeMutablePointer<UInt8>, count: Int) throws(InputError) -> Int {
        while true {
            let n = try readSome(into: pointer, count: count)
            if n < 0 { continue }  // interrupted
            bytesReadOutside += n
            if n == 0 { atEnd = true }
            onRefill?(bytesRead)
            return n
        }
    }

    /// Opens `path` for reading.
    init(path: String, chunkSize: Int) throws(InputError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw InputError(path: path, message: "cannot open the input: \(InputFile.systemError())")
        }
        var stream: gzFile?
        if path.hasSuffix(".gz") {
            stream = gzdopen(fd, "rb")
            guard let stream else {
                close(fd)
                throw InputError(path: path, message: "cannot start reading it as gzip: \(InputFile.systemError())")
            }
            gzbuffer(stream, 1 << 17)
        }
        self.init(descriptor: fd, path: path, ownsDescriptor: true, chunkSize: chunkSize, gzip: stream)
    }

    /// Opens `range` of its file: reading starts at the first line that starts in the range and
    /// ends with the newline of the last one (which may lie past the range's end). Offsets
    /// (``inputOffset(_:)``) are the file's own.
    init(range: InputRange, chunkSize: Int) throws(InputError) {
        guard !range.path.hasSuffix(".gz") else {
            throw InputError(path: range.path, message: "a byte range needs an uncompressed file (gzip cannot start reading mid-file)")
        }
        let fd = open(range.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw InputError(path: range.path, message: "cannot open the input: \(InputFile.systemError())")
        }
        let begin: Int
        do { begin = try InputFile.firstLineStart(in: fd, from: range.start, path: range.path) } catch {
            close(fd)
            throw error
        }
        self.init(descriptor: fd, path: range.path, ownsDescriptor: true, chunkSize: chunkSize)
        bufferOffset = begin
        position = begin
        rangeLimit = range.end - 1
        // A range inside one line (or past the end) holds no line start.
        if begin >= range.end { rangeDone = true }
    }

    /// The offset of the first line that starts at `start` or later (the one after a newline at
    /// `start - 1` or later), with `descriptor` positioned there.
    private static func firstLineStart(in descriptor: Int32, from start: Int, path: String) throws(InputError) -> Int {
        guard start > 0 else { return 0 }
        guard lseek(descriptor, off_t(start - 1), SEEK_SET) >= 0 else {
            throw InputError(path: path, message: "cannot seek to \(start - 1): \(InputFile.systemError())")
        }
        var offset = start - 1
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { ReformSystem.read(descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw InputError(path: path, message: "read failed: \(InputFile.systemError())") }
            if n == 0 { return offset }
            if let newline = chunk[0..<n].firstIndex(of: 0x0A) {
                offset += newline + 1
                guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
                    throw InputError(path: path, message: "cannot seek to \(offset): \(InputFile.systemError())")
                }
                return offset
            }
            offset += n
        }
    }

    /// Reads from an open descriptor (standard input, say), which is left open.
    init(descriptor: Int32, path: String, ownsDescriptor: Bool = false, chunkSize: Int, gzip: gzFile? = nil) {
        self.gzip = gzip
        self.path = path
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        capacity = max(chunkSize, 1)
        guard let bytes = InputFile.allocate(capacity) else { preconditionFailure("out of memory: \(capacity) bytes for a read buffer") }
        base = bytes
    }

    deinit {
        free(base)
        if let gzip {
            gzclose(gzip)  // closes the descriptor too
        } else if ownsDescriptor {
            close(descriptor)
        }
    }

    /// Whether the unconsumed bytes fill the buffer at its largest allowed size.
    func isFull(maximumCapacity: Int) -> Bool { start == 0 && filled == capacity && capacity >= maximumCapacity }

    /// The input offset of buffer index `i`.
    @inline(__always)
    func inputOffset(_ i: Int) -> Int { bufferOffset + i }

    /// Drops every unconsumed byte (used while skipping an oversized record).
    mutating func discardAll() {
        start = filled
    }

    /// Moves the unconsumed bytes to the front and reads more after them; returns how far buffer
    /// indexes moved down. Reads nothing at the end of the input (``atEnd``) or when the
    /// unconsumed bytes already fill `maximumCapacity` (``isFull``).
    mutating func refill(maximumCapacity: Int) throws(InputError) -> Int {
        let shift = start
        if start > 0 {
            let kept = filled - start
            if kept > 0 { base.update(from: base + start, count: kept) }
            bufferOffset += start
            filled = kept
            start = 0
        }
        if filled == capacity {
            guard capacity < maximumCapacity else { return shift }
            let newCapacity = min(max(capacity * 2, 1), maximumCapacity)
            // From the C allocator, so that a refusal is an error: Swift's own allocation stops
            // the process when the system refuses (audit r2 L18: exit 134 under `ulimit -v`).
            guard let grown = InputFile.allocate(newCapacity) else {
                throw InputError(
                    path: path,
                    message: "a record at byte \(bufferOffset) is longer than \(filled) bytes, and the system refused the "
                        + "\(newCapacity) bytes of memory needed to read on (a memory limit such as ulimit -v?); lower "
                        + "--max-record-bytes so that such a record goes to the dead-letter file, or allow the process more memory")
            }
            grown.initialize(from: base, count: filled)
            free(base)
            base = grown
            capacity = newCapacity
        }
        while true {
            let n = try readSome(into: base + filled, count: capacity - filled)
            if n < 0 { continue }  // interrupted
            if n == 0 {
                atEnd = true
            } else {
                filled += n
            }
            onRefill?(bytesRead)
            return shift
        }
    }

    /// `count` bytes from the C allocator (freed with `free`), or `nil` when the system refuses them.
    private static func allocate(_ count: Int) -> UnsafeMutablePointer<UInt8>? {
        malloc(count)?.bindMemory(to: UInt8.self, capacity: count)
    }

    /// Reads what is available into `pointer`; -1 when interrupted before reading anything.
    private mutating func readSome(into pointer: UnsafeMutablePointer<UInt8>, count: Int) throws(InputError) -> Int {
        // Checked once a chunk, so that Ctrl-C stops every reading path (a fast path that writes
        // lines straight through, a FIFO that blocks) in time to keep the dead-letter file.
        if let reason = stop.reason {
            throw InputError(path: path, message: reason)
        }
        if let gzip {
            let n = gzread(gzip, pointer, UInt32(min(count, Int(Int32.max))))
            // zlib copies a file that does not start with the gzip magic bytes as it is; a `.gz`
            // input that is not gzip (empty, cut within its first bytes, misnamed) is an error.
            if gzdirect(gzip) != 0 {
                throw InputError(
                    path: path,
                    message: "is not gzip data (it does not start with the gzip bytes 1f 8b: empty, cut short, or not compressed); "
                        + "check it with 'gzip -t', or drop the .gz from its name if it is plain text")
            }
            var code: Int32 = 0
            let message = gzerror(gzip, &code).map { String(cString: $0) } ?? "unknown zlib error"
            if n < 0 {
                throw InputError(path: path, message: "gzip data is damaged: \(message)")
            }
            // zlib reports a stream that stops before its end by returning what it has (0 at
            // last) with Z_BUF_ERROR set, not with a negative count: without this check a
            // truncated file would read as a shorter one.
            if n == 0 && code == Z_BUF_ERROR {
                throw InputError(
                    path: path,
                    message: "gzip data is damaged: the compressed data ends early (a truncated file?); "
                        + "zlib says: \(message.split(separator: ">: ", maxSplits: 1).last ?? ""). Nothing of this run was written; check the file with 'gzip -t'"
                )
            }
            return Int(n)
        }
        guard !rangeDone else { return 0 }
        let n = ReformSystem.read(descriptor, pointer, count)
        if n < 0 {
            if errno == EINTR { return -1 }
            throw InputError(path: path, message: "read failed: \(InputFile.systemError())")
        }
        guard let rangeLimit, n > 0 else { return n }
        defer { position += n }
        // The newline at or after the range's last byte ends the last line that starts in it.
        let from = max(0, rangeLimit - position)
        guard from < n, let found = memchr(pointer + from, 0x0A, n - from) else { return n }
        rangeDone = true
        return UnsafeMutablePointer<UInt8>(OpaquePointer(found)) - pointer + 1
    }

    static func systemError() -> String {
        String(cString: strerror(errno))
    }
}
