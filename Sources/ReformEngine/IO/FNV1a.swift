/// The FNV-1a hash (64 bits): a cheap, stable name or check for bytes — cache file names, a
/// state file's checksum, the tail of an output — not a defence against someone who means to
/// forge them.
enum FNV1a {
    /// The hash of `bytes`, in lower-case hex.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
