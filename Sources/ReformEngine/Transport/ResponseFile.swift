import ReformSystem

/// A response body kept in a file instead of memory: an export job's result file, which can be
/// far larger than the body limit. Its records are read from it a chunk at a time.
///
/// A downloaded body goes to a file with no name in `TMPDIR` (or `/tmp`): it lives only as long as
/// this object, and nothing is left behind however the process ends, even on `SIGKILL`. A replayed one is the recorded fixture file, opened for reading.
public final class ResponseFile: Sendable, Hashable {
    /// Where the bytes are, for messages: the fixture's path, or `TMPDIR/reform-result-…` (gone
    /// from the folder: the file has no name once made).
    public let path: String
    /// Whether the bytes are gzip-compressed (a recorded fixture); a download is stored inflated.
    public let isGzip: Bool
    let descriptor: Int32

    private init(path: String, descriptor: Int32, isGzip: Bool) {
        self.path = path
        self.descriptor = descriptor
        self.isGzip = isGzip
    }

    deinit { close(descriptor) }

    /// A new, empty, already unlinked file for a downloaded body.
    static func temporary() throws(ResponseFileError) -> ResponseFile {
        switch UnnamedFile.make(prefix: "reform-result-") {
        case .success(let file): return ResponseFile(path: file.path, descriptor: file.descriptor, isGzip: false)
        case .failure(let failure):
            throw ResponseFileError.system(
                "cannot make a file in \(failure.folder) for the body", errno: failure.code, folder: failure.folder)
        }
    }

    /// The recorded body at `path` (gzip when its name ends in `.gz`), opened for reading.
    static func fixture(_ path: String) throws(ResponseFileError) -> ResponseFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ResponseFileError.system("cannot open the recorded body \(path)", errno: errno, folder: nil) }
        return ResponseFile(path: path, descriptor: fd, isGzip: path.hasSuffix(".gz"))
    }

    /// The file's size in bytes (compressed, for a gzip fixture).
    public var byteCount: Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Empties the file (a retried download starts over).
    func truncate() throws(ResponseFileError) {
        guard ftruncate(descriptor, 0) == 0 else { throw .system("cannot empty \(path)", errno: errno, folder: nil) }
    }

    /// Appends `bytes` at `offset`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(ResponseFileError) {
        if let code = PositionedWrite.all(bytes, to: descriptor, at: offset) {
            throw .system("cannot write the body to \(path)", errno: code, folder: FilePaths.folder(of: path))
        }
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    func read(_ count: Int, at offset: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled, off_t(offset + filled))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }

    /// A descriptor of its own for a reader, at the start of the file (closed by the reader).
    func reopened() throws(ResponseFileError) -> Int32 {
        // The unlinked file has no name to open again: /proc gives a new open file description,
        // with an offset of its own; elsewhere a duplicate, moved to the start.
        var fd = open("/proc/self/fd/\(descriptor)", O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            fd = dup(descriptor)
            if fd >= 0 { lseek(fd, 0, SEEK_SET) }
        }
        guard fd >= 0 else { throw .system("cannot read \(path) again", errno: errno, folder: nil) }
        return fd
    }

    /// Identity: two objects are the same file only if they are the same object.
    public static func == (lhs: ResponseFile, rhs: ResponseFile) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A response file could not be made, written or read.
struct ResponseFileError: Error, CustomStringConvertible {
    let description: String

    static func system(_ what: String, errno code: Int32, folder: String?) -> ResponseFileError {
        let full = code == ENOSPC || code == EDQUOT
        let advice = full ? "; free space there, or set TMPDIR to a folder with room" : ""
        return ResponseFileError(description: "\(what): \(String(cString: strerror(code)))" + (folder == nil ? "" : advice))
    }
}
