import ReformSystem

/// Outputs of incremental runs: written in place at a known length, synced at checkpoints, so a
/// killed run's next run cuts them back to the last checkpoint and goes on from there.
extension OutputFile {
    /// `target` opened for writing after its first `offset` bytes (anything after them, written by
    /// a run that did not reach its next checkpoint, is cut off). `displayPath` names it.
    static func resumable(target: String, displayPath: String, offset: Int) throws(OutputError) -> OutputFile {
        try makeFolders(for: target)
        let fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw OutputError(path: displayPath, message: "cannot open it: \(systemError())") }
        guard ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            let reason = systemError()
            close(fd)
            throw OutputError(path: displayPath, message: "cannot cut it back to \(offset) bytes (the last checkpoint): \(reason)")
        }
        return OutputFile(resumingDescriptor: fd, displayPath: displayPath, offset: offset)
    }

    /// Writes what is buffered and syncs it to disk; returns the file's length.
    func sync() throws(OutputError) -> Int {
        try flush()
        if !closed, fsync(descriptor) != 0, errno != EINVAL {
            throw OutputError(path: displayPath, message: "cannot sync it to disk: \(OutputFile.systemError())")
        }
        return resumedAt + bytesWritten
    }
}
