import ReformConcurrency
import ReformSystem

/// The hidden temporary files outputs are written to, and what becomes of them when a process is
/// interrupted or killed.
extension OutputFile {
    /// A temporary file not yet committed or abandoned.
    struct Unfinished {
        /// The file it will replace.
        let finalPath: String
        /// Whether an interrupted process puts its complete lines in place (the dead-letter file).
        let keepsPartial: Bool
    }

    /// Temporary files not yet committed or abandoned, for ``settleUnfinished()``.
    static let unfinished = Guarded<[String: Unfinished]>([:])

    /// The prefix of every temporary file beside `path`: `.NAME.reform-`.
    static func temporaryPrefix(for path: String) -> String {
        "." + FilePaths.name(of: path) + ".reform-"
    }

    /// Creates `.NAME.reform-PID-XXXXXX` beside `path`; the process id lets a later run tell a
    /// file a killed process left from one a running process is still writing.
    static func createTemporary(beside path: String, displayPath: String) throws(OutputError) -> (Int32, String) {
        let folder = FilePaths.folder(of: path)
        let name = temporaryPrefix(for: path) + "\(getpid())-XXXXXX"
        var template = Array(FilePaths.resolve(name, against: folder).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { name in name.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            throw OutputError(path: displayPath, message: "cannot create a file beside it: \(systemError())")
        }
        return (fd, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Removes the temporary files beside `path` whose process is gone (killed with SIGKILL, or
    /// by a power cut): `.NAME.reform-PID-…` where no process PID runs.
    static func removeStaleTemporaries(beside path: String) {
        let folder = FilePaths.folder(of: path)
        let prefix = temporaryPrefix(for: path)
        for name in FilePaths.names(in: folder, startingWith: prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink(FilePaths.resolve(name, against: folder))
            }
        }
    }

    /// Whether `path` is written in place by whoever writes it, never replaced: a descriptor path
    /// (``descriptorPath(_:)``), or something there that is not a regular file or a folder — a
    /// device such as `/dev/null`, a FIFO. Nobody's run owns it: it is not locked, not replaced by
    /// renaming, not appended to at a known length.
    static func isWrittenInPlace(_ path: String) -> Bool {
        if descriptorPath(path) != nil { return true }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// The descriptor a path such as `/dev/stdout`, `/dev/fd/3` or `/proc/self/fd/2` writes to;
    /// such paths are written through the descriptor, never renamed over.
    static func descriptorPath(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return 0
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    /// The last resort of a process interrupted by a signal that could not unwind in time: every
    /// unfinished output is removed, except files that keep what they have (the dead-letter
    /// file), whose complete lines are put in place. Async-signal-unsafe calls are fine here: it
    /// runs on the watcher thread, not in a signal handler.
    public static func settleUnfinished() {
        for (temporary, file) in unfinished.withLock({ $0 }) {
            if file.keepsPartial, truncateToLastLine(temporary), rename(temporary, file.finalPath) == 0 { continue }
            unlink(temporary)
        }
    }

    /// Cuts `path` after its last line feed (a line being written when the process stopped is not
    /// kept); false when it holds no complete line or cannot be changed.
    private static func truncateToLastLine(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        var end = Int(info.st_size)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while end > 0 {
            let start = max(0, end - chunk.count)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, end - start, off_t(start)) }
            guard n == end - start else { return false }
            if let last = chunk[0..<n].lastIndex(of: UInt8(ascii: "\n")) {
                return ftruncate(fd, off_t(start + last + 1)) == 0
            }
            end = start
        }
        return false
    }
}
