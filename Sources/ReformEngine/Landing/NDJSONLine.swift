import ReformSystem

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

    /// Whether `base[start..<end]` holds only what a blank line holds (spaces, tabs, carriage
    /// returns): how the readers tell a blank line longer than they hold from one too long.
    static func isBlank(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var i = start
        while i < end {
            let byte = base[i]
            guard byte == 0x20 || byte == 0x09 || byte == 0x0D else { return false }
            i += 1
        }
        return true
    }

    /// ``isBlank(_:from:to:)`` over `bytes[range]`.
    static func isBlank(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return true }
            return isBlank(base, from: range.lowerBound, to: range.upperBound)
        }
    }

    /// A line longer than the limit, which a reader reads past without holding it: a blank one
    /// is skipped, as a short blank line is, whatever its length; any other is too long.
    enum LongLine {
        /// Only spaces, tabs and carriage returns: not a record.
        case blank
        /// A record over the limit, reported as too long.
        case tooLong
    }
}
