#if canImport(Glibc)
import Glibc
#endif

/// A buffered byte destination: standard output, or a file written atomically.
///
/// Writers append bytes to ``buffer`` and call ``flushIfFull()``; nothing reaches the file system
/// until then. A file output is written to a temporary file in the same folder and renamed over
/// the target by ``commit()``, so readers never see a half-written file; ``abandon()`` removes the
/// temporary file instead (a failed or interrupted run leaves the old file as it was).
public final class OutputFile {
    /// Bytes not written yet; append to it directly, then call ``flushIfFull()``.
    public var buffer: [UInt8]
    /// The path shown in messages (`-` for standard output).
    public let displayPath: String

    private let descriptor: Int32
    private let temporaryPath: String?
    private let finalPath: String?
    private var closed = false
    private static let flushThreshold = 1 << 16

    private let ownsDescriptor: Bool

    private init(descriptor: Int32, displayPath: String, temporaryPath: String?, finalPath: String?, ownsDescriptor: Bool = false) {
        self.ownsDescriptor = ownsDescriptor
        self.descriptor = descriptor
        self.displayPath = displayPath
        self.temporaryPath = temporaryPath
        self.finalPath = finalPath
        buffer = []
        buffer.reserveCapacity(OutputFile.flushThreshold * 2)
    }

    /// Standard output; ``commit()`` flushes and leaves the descriptor open.
    public static func standardOutput() -> OutputFile {
        OutputFile(descriptor: 1, displayPath: "-", temporaryPath: nil, finalPath: nil)
    }

    /// A new file at `path`, written to a temporary file beside it until ``commit()``.
    ///
    /// A path that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO) is opened
    /// and written directly: renaming over it would replace the device.
    public static func atomic(path: String) throws(OutputError) -> OutputFile {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else {
                throw OutputError(path: path, message: "cannot open for writing: \(OutputFile.systemError())")
            }
            return OutputFile(descriptor: fd, displayPath: path, temporaryPath: nil, finalPath: nil, ownsDescriptor: true)
        }
        try makeFolders(for: path)
        var template = Array((path + ".reform-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { name in name.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            throw OutputError(path: path, message: "cannot create a file beside it: \(OutputFile.systemError())")
        }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        fchmod(fd, 0o644)
        unfinished.withLock { _ = $0.insert(temporary) }
        return OutputFile(descriptor: fd, displayPath: path, temporaryPath: temporary, finalPath: path)
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
    }

    /// Temporary files not yet committed or abandoned, for ``abandonUnfinished()``.
    private static let unfinished = Guarded<Set<String>>([])

    /// Removes every temporary file not yet committed: the last resort of an interrupted process,
    /// so that no half-written file is left beside an output.
    public static func abandonUnfinished() {
        for path in unfinished.withLock({ $0 }) { unlink(path) }
    }

    /// Flushes and, for a file, renames the temporary file over the target.
    public func commit() throws(OutputError) {
        try flush()
        guard !closed else { return }
        closed = true
        if let temporaryPath { _ = OutputFile.unfinished.withLock { $0.remove(temporaryPath) } }
        guard let temporaryPath, let finalPath else {
            if ownsDescriptor { close(descriptor) }
            return
        }
        if close(descriptor) != 0 {
            unlink(temporaryPath)
            throw OutputError(path: displayPath, message: "close failed: \(OutputFile.systemError())")
        }
        if rename(temporaryPath, finalPath) != 0 {
            let reason = OutputFile.systemError()
            unlink(temporaryPath)
            throw OutputError(path: displayPath, message: "cannot move the finished file into place: \(reason)")
        }
    }

    /// Drops the output: a file's temporary copy is removed and the target is left untouched.
    public func abandon() {
        guard !closed else { return }
        closed = true
        buffer.removeAll()
        if ownsDescriptor { close(descriptor) }
        if let temporaryPath {
            close(descriptor)
            unlink(temporaryPath)
            _ = OutputFile.unfinished.withLock { $0.remove(temporaryPath) }
        }
    }

    deinit {
        abandon()
    }

    /// Creates the folders above `path` that do not exist yet (`mkdir -p` of its parent).
    static func makeFolders(for path: String) throws(OutputError) {
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (i, part) in parts.enumerated() {
            prefix += (i == 0 ? "" : "/") + part
            guard !part.isEmpty, part != ".", part != ".." else { continue }
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw OutputError(path: path, message: "cannot create the folder \(prefix): \(systemError())")
            }
        }
    }

    private static func systemError() -> String {
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
