import ReformConcurrency
import ReformSystem

/// Committing several outputs together: all of them are replaced, or none.
extension OutputFile {
    /// Puts every file of `files` in place, or none of them: each is flushed, synced and closed
    /// first; then each old file is kept aside (a hard link) until every new one is in place, and
    /// put back if a later rename fails. Standard output and devices are flushed.
    public static func commitAll(_ files: [OutputFile]) throws(OutputError) {
        try placeAll(files).finish()
    }

    /// The files ``placeAll(_:)`` put in place, with the old files kept aside until the commit
    /// they are part of is decided: ``finish()`` drops the old files, ``putBack()`` restores them.
    struct Placed {
        fileprivate var done: [(file: OutputFile, kept: String?)] = []

        /// Drops the old files: the new ones stay.
        func finish() {
            for (_, kept) in done { if let kept { unlink(kept) } }
        }

        /// Puts the old files back (and removes new ones that had no old file); returns the
        /// outputs restored.
        @discardableResult
        func putBack() -> [String] {
            for (replaced, kept) in done.reversed() {
                guard let final = replaced.finalPath else { continue }
                if let kept { rename(kept, final) } else { unlink(final) }
            }
            return done.map(\.file.displayPath)
        }
    }

    /// Puts every file of `files` in place, or none of them, keeping each old file aside so that
    /// the caller can still put them all back (when a table commit that goes with them fails).
    static func placeAll(_ files: [OutputFile]) throws(OutputError) -> Placed {
        do throws(OutputError) {
            for file in files { try file.prepareCommit() }
        } catch {
            for file in files { file.abandon() }
            throw error
        }
        var placed = Placed()
        for file in files {
            guard let temporary = file.temporaryPath, let final = file.finalPath, file.isPending else { continue }
            do throws(OutputError) {
                let kept = try keepOld(final, displayPath: file.displayPath)
                if rename(temporary, final) != 0 {
                    let reason = systemError()
                    if let kept { unlink(kept) }
                    throw OutputError(path: file.displayPath, message: "cannot move the finished file into place: \(reason)")
                }
                file.forget()
                placed.done.append((file, kept))
            } catch {
                // Put back what was replaced so far; drop what was not.
                let restored = placed.putBack()
                for file in files { file.abandon() }
                throw error.describingRollback(restored)
            }
        }
        return placed
    }

    /// Whether the temporary file still waits to be renamed into place.
    var isPending: Bool { temporaryPath.map { path in OutputFile.unfinished.withLock { $0[path] != nil } } ?? false }

    /// A hard link to the file at `path` beside it (`.NAME.reform-PID-old-XXXXXX`), so that it
    /// can be put back; nil when there is no old file.
    private static func keepOld(_ path: String, displayPath: String) throws(OutputError) -> String? {
        guard FilePaths.isFile(path) else { return nil }
        for attempt in 0..<100 {
            let name = FilePaths.resolve(temporaryPrefix(for: path) + "\(getpid())-old-\(attempt)", against: FilePaths.folder(of: path))
            if link(path, name) == 0 { return name }
            if errno != EEXIST {
                throw OutputError(
                    path: displayPath,
                    message: "cannot keep the old file while the new ones go in place (\(systemError())); nothing was replaced")
            }
        }
        throw OutputError(path: displayPath, message: "cannot keep the old file while the new ones go in place; nothing was replaced")
    }
}

extension OutputError {
    /// This failure, saying which outputs were put back.
    func describingRollback(_ restored: [String]) -> OutputError {
        guard !restored.isEmpty else { return self }
        return OutputError(
            path: path,
            message: message + "; the outputs already replaced were put back (\(restored.joined(separator: ", "))): no output changed")
    }
}
