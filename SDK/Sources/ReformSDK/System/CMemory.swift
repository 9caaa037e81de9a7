// The SDK's one file that imports the C library (its own seam: the SDK is a package of its own and
// does not depend on Reform's ReformSystem), for the two calls its JSON reader makes.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("ReformSDK supports glibc, musl and Darwin")
#endif

/// The C library's byte search and comparison, vectorised where the JSON reader scans strings.
enum CMemory {
    /// Whether the `count` bytes at `start` include `byte` (`memchr`).
    static func contains(_ byte: UInt8, _ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        memchr(start, Int32(byte), count) != nil
    }

    /// Whether the `count` bytes at `first` and at `second` are the same (`memcmp`).
    static func equal(_ first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>, count: Int) -> Bool {
        memcmp(first, second, count) == 0
    }
}
