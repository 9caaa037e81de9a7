/// Non-blocking stream sockets that never raise `SIGPIPE`, made the same way on every C library
/// (Linux takes the flags in the socket type and in `send`; Darwin has neither and sets them after).
public enum Sockets {
    /// `SOCK_STREAM` as the `Int32` that `socket(2)` and `addrinfo.ai_socktype` take (glibc imports
    /// it as an enum case).
    public static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    /// A new non-blocking, close-on-exec socket (`socket(2)`'s arguments), or -1 with `errno` set.
    public static func open(family: Int32, type: Int32, protocol: Int32) -> Int32 {
        #if canImport(Darwin)
        let descriptor = socket(family, type, `protocol`)
        if descriptor >= 0 { prepare(descriptor) }
        return descriptor
        #else
        return socket(family, type | nonBlockingCloseOnExec, `protocol`)
        #endif
    }

    /// A connected pair of non-blocking, close-on-exec Unix stream sockets, or `nil` with `errno` set.
    public static func openPair() -> (Int32, Int32)? {
        var pair: [Int32] = [-1, -1]
        #if canImport(Darwin)
        guard socketpair(AF_UNIX, streamType, 0, &pair) == 0 else { return nil }
        prepare(pair[0])
        prepare(pair[1])
        #else
        guard socketpair(AF_UNIX, streamType | nonBlockingCloseOnExec, 0, &pair) == 0 else { return nil }
        #endif
        return (pair[0], pair[1])
    }

    /// `send(2)` of `count` bytes at `bytes` without `SIGPIPE` when the peer has gone (`EPIPE`
    /// instead): the bytes sent, or -1 with `errno` set.
    public static func send(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.send(descriptor, bytes, count, 0)  // SO_NOSIGPIPE, set by `prepare`
        #elseif canImport(Musl)
        Musl.send(descriptor, bytes, count, MSG_NOSIGNAL)
        #else
        Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
        #endif
    }

    #if canImport(Darwin)
    /// Makes `descriptor` non-blocking, close-on-exec and free of `SIGPIPE` (Darwin's socket type
    /// takes no flags, and `send` no `MSG_NOSIGNAL`).
    private static func prepare(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    }
    #else
    /// `SOCK_NONBLOCK | SOCK_CLOEXEC`, for the type argument of `socket(2)` and `socketpair(2)`.
    private static var nonBlockingCloseOnExec: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        #else
        SOCK_NONBLOCK | SOCK_CLOEXEC
        #endif
    }
    #endif
}
