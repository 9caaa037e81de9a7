import ReformSystem

/// A temporary file that has no name: made with `mkstemp` in `TMPDIR` (or `/tmp`), unlinked at
/// once and closed on `exec`, so its bytes live only as long as this process holds the descriptor
/// — nothing is left behind however the process ends, even on `SIGKILL`, and no program the run
/// starts (a `command:` step) keeps it alive.
struct UnnamedFile {
    /// The open descriptor (the caller closes it).
    let descriptor: Int32
    /// The folder it was made in.
    let folder: String
    /// The name it had before it was unlinked, for messages.
    let path: String

    /// A new file whose name starts with `prefix` (`reform-sort-`); the `errno` of a failure.
    static func make(prefix: String) -> Result<UnnamedFile, FileFailure> {
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array(((folder.hasSuffix("/") ? folder : folder + "/") + prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { return .failure(FileFailure(folder: folder, code: errno)) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let path = template.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { pointer in
                _ = unlink(pointer)
                return String(cString: pointer)
            } ?? folder
        }
        return .success(UnnamedFile(descriptor: fd, folder: folder, path: path))
    }

    /// Why a file could not be made: the folder and the `errno`.
    struct FileFailure: Error {
        let folder: String
        let code: Int32
    }
}
