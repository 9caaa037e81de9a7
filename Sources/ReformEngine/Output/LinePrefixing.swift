import ReformSystem

/// Puts a tag before every line of a byte stream: the `out` lines of `--tagged-stdout`.
///
/// Records are written as compact JSON, which never holds a raw newline or tab, so `TAG<TAB>`
/// before each line keeps every record whole and the tag unambiguous.
enum LinePrefixing {
    /// `bytes` with `prefix` before each line that starts in them; `atLineStart` says whether the
    /// first byte starts a line, and is left saying whether the next write's first byte does.
    static func prefixed(_ bytes: [UInt8], with prefix: [UInt8], atLineStart: inout Bool) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + bytes.count / 16 + prefix.count)
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                if atLineStart { result.append(contentsOf: prefix) }
                let end: Int
                if let found = memchr(base + start, 0x0A, buffer.count - start) {
                    end = UnsafePointer<UInt8>(OpaquePointer(found)) - base + 1
                    atLineStart = true
                } else {
                    end = buffer.count
                    atLineStart = false
                }
                result.append(contentsOf: buffer[start..<end])
                start = end
            }
        }
        return result
    }
}
