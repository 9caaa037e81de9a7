import ReformSystem

/// The advisory locks a run holds on the files it writes (its outputs, the dead-letter file, the
/// state file), so that two runs on the same files — a cron job that overlaps itself, two batch
/// runs with one `--output` — never write them at once: the second is refused with the pid of the
/// first, or waits for it (`--wait-lock`).
///
/// Each file `DIR/NAME` is locked through a hidden lock file beside it, `DIR/.NAME.reform-lock`
/// (`DIR/.NAME.reform-lock` for a hidden `.NAME` too) (`flock`, exclusive), which holds the pid
/// of the run that has it. The kernel releases a lock when its run ends, however it ends (even
/// `kill -9`). A run removes its lock files as it releases them, so they are there only while it
/// runs (or after a `kill -9`, until the next run); a run that got the lock of a file removed
/// meanwhile sees that it is no longer the one at the path, and locks again.
final class RunLock: @unchecked Sendable {
    private var held: [(fd: Int32, path: String)] = []

    private init() {}

    /// Takes the lock of every file of `paths` (`what` says what each is, for the message), in
    /// path order so that runs waiting on each other cannot deadlock; with `wait`, waits for a
    /// holder to finish instead of failing. Files whose folder cannot hold a lock file (read-only)
    /// are not locked: nothing can be written there either. A wait ends when `stop` is requested.
    static func take(
        _ paths: [(path: String, what: String)], wait: Bool, stop: StopToken = .process, log: (String) -> Void
    ) throws(RunError) -> RunLock {
        let lock = RunLock()
        var seen: Set<String> = []
        let sorted = paths.map { (lockPath(of: $0.path), $0.path, $0.what) }.sorted { $0.0 < $1.0 }
        for (lockPath, path, what) in sorted where seen.insert(lockPath).inserted {
            // Devices, FIFOs and descriptors (`/dev/null`, `/dev/stdout`) are written in place, by
            // nobody's run alone: only files are locked.
            if OutputFile.isWrittenInPlace(path) || FilePaths.isDirectory(path) { continue }
            var logged = false
            while true {
                let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
                guard fd >= 0 else { break }
                var info = stat()
                guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                    close(fd)
                    break
                }
                if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                    let holder = holderDescription(fd)
                    guard wait else {
                        close(fd)
                        lock.release()
                        throw RunError(
                            .locked,
                            "another run\(holder) is writing \(what) \(path) (it holds \(lockPath)); wait for it to finish, pass "
                                + "--wait-lock to wait for it, or give this run other outputs")
                    }
                    if !logged { log("waiting for another run\(holder) to finish writing \(path)") }
                    logged = true
                    // Polled rather than blocked on, so that a run's own stop token ends the wait too
                    // (a signal would interrupt a blocking wait; a token alone would not).
                    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                        guard errno == EWOULDBLOCK || errno == EINTR, !stop.isRequested else {
                            close(fd)
                            lock.release()
                            throw RunError(.interrupted, "interrupted while waiting for another run to finish writing \(path)")
                        }
                        usleep(50_000)
                    }
                }
                // The holder before may have removed the file as it let go: lock the one at the path.
                var now = stat()
                guard fstat(fd, &info) == 0, stat(lockPath, &now) == 0, now.st_ino == info.st_ino, now.st_dev == info.st_dev else {
                    close(fd)
                    continue
                }
                let pid = Array("\(getpid())\n".utf8)
                _ = ftruncate(fd, 0)
                _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                lock.held.append((fd, lockPath))
                break
            }
        }
        return lock
    }

    /// The hidden lock file of `path`: `.NAME.reform-lock` beside it (`NAME.reform-lock` when
    /// the file is hidden already).
    static func lockPath(of path: String) -> String {
        let name = FilePaths.name(of: path)
        return FilePaths.resolve((name.hasPrefix(".") ? "" : ".") + name + ".reform-lock", against: FilePaths.folder(of: path))
    }

    /// ` (pid N)` from the lock file's content, when it names one.
    private static func holderDescription(_ fd: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0, let pid = Int(String(decoding: bytes.prefix(n), as: UTF8.self).trimmingCharacters(in: "\n")) else { return "" }
        return " (pid \(pid))"
    }

    /// Releases every lock, removing its lock file first (while it is still held).
    func release() {
        for (fd, path) in held {
            unlink(path)
            close(fd)
        }
        held.removeAll()
    }

    deinit { release() }
}
