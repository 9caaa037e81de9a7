/// The address space the process may still take under its limit (`RLIMIT_AS`, `ulimit -v`): past
/// it an allocation fails, and Swift stops the process when one of its own fails.
public enum AddressSpace {
    /// Bytes the process may still map, or `nil` when its address space has no limit.
    public static func room() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_AS.rawValue)
        #else
        let resource = RLIMIT_AS
        #endif
        // RLIM_INFINITY is all ones on glibc and musl, 2^63 - 1 on Darwin.
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int.max) else { return nil }
        let allowed = Int(clamping: limit.rlim_cur)
        return max(0, allowed - (mappedBytes() ?? 0))
    }

    /// The bytes mapped now (`/proc/self/statm`'s first field, in pages); `nil` where there is no
    /// `/proc`.
    static func mappedBytes() -> Int? {
        guard let file = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        guard let pages = Int(String(decoding: line.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
