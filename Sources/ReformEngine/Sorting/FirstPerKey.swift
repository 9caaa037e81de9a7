import ReformSDK

/// What ``LineSteps`` keeps for a sort followed by a `dedupe`: per dedupe key, the line that sorts
/// first so far, with its sort key and when it came.
///
/// A key that is a string of printable ASCII is found by its bytes (``textPositions``): two such
/// strings are equal exactly when their bytes are. Other keys are found by value (``positions``).
/// A non-ASCII string can equal an ASCII one (the Kelvin sign and `K`): such a key then keeps a
/// line in each table, and the dedupe after the sort, which compares values, drops the later one.
/// Keeping a line too many is harmless; a line is only ever dropped for one of the same key.
struct FirstPerKey {
    /// A string key's bytes: up to 24 in three words, the rest (of a longer key) in an array,
    /// so that the common short key costs no allocation and compares in a few instructions.
    struct TextKey: Hashable {
        let word0: UInt64
        let word1: UInt64
        let word2: UInt64
        let count: Int
        let rest: [UInt8]

        /// The key whose bytes (between the quotes) are `bytes`.
        init(_ bytes: UnsafeRawBufferPointer) {
            var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &words) { words in
                words.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(24)))
            }
            (word0, word1, word2) = words
            count = bytes.count
            rest = bytes.count > 24 ? Array(bytes[24...]) : []
        }

        /// One word mixed from the key's, where the synthesized hash combined five values (the
        /// table hashes the key of every line the sort is handed).
        func hash(into hasher: inout Hasher) {
            hasher.combine(word0 ^ (word1 &* 0x9E37_79B9_7F4A_7C15) ^ (word2 &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: count))
            if !rest.isEmpty { hasher.combine(rest) }
        }
    }

    /// The located paths the dedupe reads its key from.
    let paths: [Int]
    /// The sort's memory budget: past it, the lines go to the sort, which can spill.
    let budget: Int
    /// Each value key's position in ``lines``.
    var positions: [Value: Int] = [:]
    /// Each ASCII string key's position in ``lines``.
    var textPositions: [TextKey: Int] = [:]
    /// The kept lines, one per key seen, each with its sort key and its place in the input.
    var lines: [(key: Value, sequence: Int, line: HeldLine)] = []
    /// About how many bytes the lines and keys take.
    var bytes = 0
}
