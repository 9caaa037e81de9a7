import CWriteback
import ReformConcurrency
import ReformSDK
import ReformSystem

/// A buffered byte destination: standard output, or a file written atomically.
///
/// Writers append bytes to ``buffer`` and call ``flushIfFull()``; nothing reaches the file system
/// until then. A file output is written to a hidden temporary file in the same folder
/// (`.NAME.reform-PID-XXXXXX`, which Spark and Hadoop readers skip) and renamed over the target by
/// ``commit()``, so readers never see a half-written file; ``abandon()`` removes the temporary
/// file instead (a failed or interrupted run leaves the old file as it was). Temporary files a
/// killed process left behind are removed by the next run that writes beside them.
public final class OutputFile {
    /// Bytes not written yet; append to it directly, then call ``flushIfFull()``.
    public var buffer: [UInt8]
    /// The path shown in messages (`-` for standard output).
    public let displayPath: String

    let descriptor: Int32
    let temporaryPath: String?
    let finalPath: String?
    var closed = false
    private static let flushThreshold = 1 << 16

    private let ownsDescriptor: Bool
    /// Bytes the file already held when this run started writing it (an incremental run's
    /// output, appended to); 0 for a new file.
    public private(set) var resumedAt = 0
    /// Bytes written to the descriptor so far.
    private(set) var bytesWritten = 0
    /// Whether the file is synced to disk before it is committed (a temporary file) or at
    /// checkpoints (a resumable one), so that its write-back is started as it grows.
    private let syncs: Bool
    /// ``bytesWritten`` when write-back was last started.
    private var writebackStartedAt = 0
    /// How many bytes are written between starts of write-back, so the sync at the end waits for
    /// about this much. Measured on the chain benchmark's 25 MB output: its fsync took 13 ms (5%
    /// of the run) and 3 ms with write-back started every 1 or 4 MiB (each start ~0.5 ms).
    private static let writebackChunk = 1 << 20
    /// Called before each write to the descriptor (``RunOptions/beforeStandardOutput`` for
    /// standard output).
    var willWrite: (@Sendable () -> Void)?
    /// Written before every line (``RunOptions/standardOutputTag``: `out` and a tab), when set.
    var linePrefix: [UInt8]?
    /// Whether the last byte written ended a line (the next byte starts one).
    private var atLineStart = true
    /// Takes the lines instead of the file while set: an NDJSON output whose chain ends with a
    /// sort (or `dedupe`, `limit`) run on its lines, which writes them at the end.
    var lineHolder: (any LineHolder)?

    /// A file written in place, after the `offset` bytes it holds (``resumable(target:displayPath:offset:)``).
    convenience init(resumingDescriptor descriptor: Int32, displayPath: String, offset: Int) {
        self.init(
            descriptor: descriptor, displayPath: displayPath, temporaryPath: nil, finalPath: nil, ownsDescriptor: true, syncs: true)
        resumedAt = offset
    }

    private init(
        descriptor: Int32, displayPath: String, temporaryPath: String?, finalPath: String?, ownsDescriptor: Bool = false,
        syncs: Bool = false
    ) {
        self.ownsDescriptor = ownsDescriptor
        self.descriptor = descriptor
        self.displayPath = displayPath
        self.temporaryPath = temporaryPath
        self.finalPath = finalPath
        self.syncs = syncs || temporaryPath != nil
        buffer = []
        buffer.reserveCapacity(OutputFile.flushThreshold * 2)
    }

    /// Standard output; ``commit()`` flushes and leaves the descriptor open.
    public static func standardOutput() -> OutputFile {
        OutputFile(descriptor: 1, displayPath: "-", temporaryPath: nil, finalPath: nil)
    }

    /// A new file at `path`, written to a temporary file beside it until ``commit()``.
    ///
    /// What is not a regular file is written in place, never renamed over: a device or FIFO
    /// (`/dev/null`), and the descriptor paths `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and
    /// `/proc/self/fd/N`, which write to the descriptor itself. A symlink to a file keeps the link:
    /// the file it points to is replaced atomically. A file replaced keeps its permissions.
    ///
    /// With `keepsPartialOnInterrupt` (the dead-letter file), an interrupted process that could
    /// not unwind in time still puts the complete lines written so far in place. A `privateFile`
    /// (the response cache, which may hold what a server echoed) is made 0600 in folders made 0700.
    public static func atomic(path: String, keepsPartialOnInterrupt: Bool = false, privateFile: Bool = false) throws(OutputError)
        -> OutputFile
    {
        if let descriptor = OutputFile.descriptorPath(path) {
            let fd = dup(descriptor)
            guard fd >= 0 else {
                throw OutputError(path: path, message: "cannot write to descriptor \(descriptor): \(OutputFile.systemError())")
            }
            return OutputFile(descriptor: fd, displayPath: path, temporaryPath: nil, finalPath: nil, ownsDescriptor: true)
        }
        var target = path
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let real = realpath(path, nil) {
            target = String(cString: real)
            free(real)
        }
        var mode: mode_t = 0o644
        if stat(target, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                guard (info.st_mode & S_IFMT) != S_IFDIR else {
                    throw OutputError(path: path, message: "is a folder; give a file path")
                }
                let fd = open(target, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw OutputError(path: path, message: "cannot open for writing: \(OutputFile.systemError())")
                }
                return OutputFile(descriptor: fd, displayPath: path, temporaryPath: nil, finalPath: nil, ownsDescriptor: true)
            }
            mode = info.st_mode & 0o7777
        }
        if privateFile { mode = 0o600 }
        try makeFolders(for: target, mode: privateFile ? 0o700 : 0o755)
        removeStaleTemporaries(beside: target)
        let (fd, temporary) = try createTemporary(beside: target, displayPath: path)
        fchmod(fd, mode)
        unfinished.withLock { $0[temporary] = Unfinished(finalPath: target, keepsPartial: keepsPartialOnInterrupt) }
        return OutputFile(descriptor: fd, displayPath: path, temporaryPath: temporary, finalPath: target)
    }

    /// Writes the buffer out once it holds more than a chunk.
    @inline(__always)
    public func flushIfFull() throws(OutputError) {
        if buffer.count >= OutputFile.flushThreshold { try flush() }
    }

    /// Writes everything buffered so far.
    public func flush() throws(OutputError) {
        try writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Appends `bytes` after the buffered ones; a large block goes straight to the file instead of
    /// being copied into the buffer first (a parallel run's workers hand over whole batches).
    public func append(_ bytes: [UInt8]) throws(OutputError) {
        guard bytes.count >= OutputFile.flushThreshold else {
            buffer.append(contentsOf: bytes)
            try flushIfFull()
            return
        }
        try flush()
        try writeAll(bytes)
    }

    private func writeAll(_ bytes: [UInt8]) throws(OutputError) {
        guard let lineHolder else { return try writeOut(bytes) }
        let passing: [UInt8]
        do { passing = try lineHolder.take(bytes) } catch { throw OutputError(path: displayPath, message: error.message) }
        try writeOut(passing)
    }

    private func writeOut(_ bytes: [UInt8]) throws(OutputError) {
        if !bytes.isEmpty { willWrite?() }
        if let linePrefix, !bytes.isEmpty {
            try writeRaw(LinePrefixing.prefixed(bytes, with: linePrefix, atLineStart: &atLineStart))
        } else {
            try writeRaw(bytes)
        }
    }

    private func writeRaw(_ bytes: [UInt8]) throws(OutputError) {
        var written = 0
        let total = bytes.count
        while written < total {
            let n = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { write(descriptor, $0 + written, total - written) } ?? 0
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError(path: displayPath, message: "write failed: \(OutputFile.systemError())")
            }
            written += n
        }
        bytesWritten += total
        if syncs, bytesWritten - writebackStartedAt >= OutputFile.writebackChunk {
            // A hint: the disk starts on what is written while the run goes on; errors are the
            // sync's to report.
            _ = reform_start_writeback(descriptor)
            writebackStartedAt = bytesWritten
        }
    }

    /// Flushes and, for a file, renames the temporary file over the target.
    public func commit() throws(OutputError) {
        try OutputFile.commitAll([self])
    }

    /// Drops the output: a file's temporary copy is removed and the target is left untouched.
    public func abandon() {
        if !closed {
            closed = true
            buffer.removeAll()
            if ownsDescriptor || temporaryPath != nil { close(descriptor) }
        }
        if let temporaryPath, isPending {
            unlink(temporaryPath)
            forget()
        }
    }

    /// Takes the temporary file off the list of unfinished ones.
    func forget() {
        if let temporaryPath { _ = OutputFile.unfinished.withLock { $0.removeValue(forKey: temporaryPath) } }
    }

    /// Flushes, syncs and closes the file, ready to be renamed into place; standard output and
    /// devices are only flushed (and closed when owned).
    func prepareCommit() throws(OutputError) {
        try flush()
        guard !closed else { return }
        guard temporaryPath != nil else {
            closed = true
            if ownsDescriptor { close(descriptor) }
            return
        }
        if fsync(descriptor) != 0 && errno != EINVAL {
            throw OutputError(path: displayPath, message: "cannot sync it to disk: \(OutputFile.systemError())")
        }
        closed = true
        if close(descriptor) != 0 {
            throw OutputError(path: displayPath, message: "close failed: \(OutputFile.systemError())")
        }
    }

    deinit {
        abandon()
    }

    /// Creates the folders above `path` that do not exist yet (`mkdir -p` of its parent).
    static func makeFolders(for path: String, mode: mode_t = 0o755) throws(OutputError) {
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (i, part) in parts.enumerated() {
            prefix += (i == 0 ? "" : "/") + part
            guard !part.isEmpty, part != ".", part != ".." else { continue }
            if mkdir(prefix, mode) != 0 && errno != EEXIST {
                throw OutputError(path: path, message: "cannot create the folder \(prefix): \(systemError())")
            }
        }
    }

    static func systemError() -> String {
        String(cString: strerror(errno))
    }
}

/// An output could not be written.
public struct OutputError: Error, Sendable, CustomStringConvertible {
    /// The output path as the user gave it.
    public let path: String
    /// What failed.
    public let message: String

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}

/// What an output file hands the bytes written to it while its ``OutputFile/lineHolder`` is set:
/// it holds the complete lines it needs to (a chain's last `sort` run on written lines, in
/// `Sorting/`) and returns the bytes to write now; whatever it holds it writes to the file itself
/// at the end.
protocol LineHolder: AnyObject {
    /// Takes written bytes (the start of a line whose end is not in them waits for the next call)
    /// and returns those to write now.
    func take(_ bytes: [UInt8]) throws(SpillError) -> [UInt8]
}
