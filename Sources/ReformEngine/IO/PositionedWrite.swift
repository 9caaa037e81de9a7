import ReformSystem

/// Writing bytes at an offset of a file with `pwrite`, whole: again after an interruption, on
/// from where a short write stopped.
enum PositionedWrite {
    /// Writes all of `bytes` to `descriptor` at `offset`; the `errno` of a failure, `nil` when
    /// every byte was written.
    static func all(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, base + done, bytes.count - done, off_t(offset + done))
            if count < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += count
        }
        return nil
    }
}
