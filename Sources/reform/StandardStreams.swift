import ReformSystem

/// Standard input, output and error that the caller closed (`<&-`, `>&-`).
///
/// A closed descriptor would be reused by the next file the process opens: an output's temporary
/// file could become descriptor 1, and what was meant for standard output would land in it. At
/// start, each closed one is pointed at `/dev/null` and remembered, so that a run that reads
/// standard input or writes standard output can refuse with a clear message instead.
enum StandardStreams {
    /// Which of 0, 1, 2 were closed when the process started.
    nonisolated(unsafe) private(set) static var closed: Set<Int32> = []

    /// Opens `/dev/null` on every closed standard descriptor; call before anything else opens a file.
    static func reopenClosed() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != descriptor {
                dup2(null, descriptor)
                close(null)
            }
            closed.insert(descriptor)
        }
    }

    /// Writes `bytes` to standard output whole; `false` when it could not (a closed pipe, a full
    /// disk: `errno` says why).
    static func writeOutput(_ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { ReformSystem.write(1, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            written += n
        }
        return true
    }
}
