#if canImport(Glibc)
import Glibc
#endif

/// The NDJSON line rules the streaming reader and the parallel batches share.
enum NDJSONLine {
    /// The position of the first line feed in `bytes` at or after `start` (`memchr`: a slice's
    /// `firstIndex(of:)` walks it a byte at a time through an iterator).
    @inline(__always)
    static func end(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count,
            let found = memchr(base + start, 0x0A, bytes.count - start)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// The end of the line's content in `base[start..<end]` (a trailing `\r` dropped), or `nil`
    /// for a blank line (only spaces, tabs and carriage returns), which is not a record.
    @inline(__always)
    static func contentEnd(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int? {
        var end = end
        if end > start && base[end - 1] == 0x0D { end -= 1 }
        var first = start
        while first < end && (base[first] == 0x20 || base[first] == 0x09 || base[first] == 0x0D) { first += 1 }
        return first == end ? nil : end
    }
}
