/// The keys of one large object while it is parsed, hashed, so that the duplicate-key check
/// stays linear in the member count (reliability audit r2 M5: comparing each key with every
/// earlier one took 19 s for 40,000 members).
///
/// Keys are told apart exactly as the scan over ``KeyPrint``s does for smaller objects: a short
/// key by its bytes (its fingerprint), a longer or escaped one as a `String`.
struct ObjectKeyIndex {
    /// The member count at which an object's keys go into an index: below it, scanning the
    /// fingerprints is quicker than hashing.
    static let threshold = 32

    /// A short key's fingerprint, hashable.
    private struct Short: Hashable {
        let low: UInt64, high: UInt64, length: Int
    }

    private var short: [Short: Int] = [:]
    private var long: [String: Int] = [:]

    /// No keys.
    init() {}

    /// The keys of `members`, whose fingerprints are `prints` (one each, in order; no key twice).
    init(_ members: [Object.Member], prints: ArraySlice<KeyPrint>) {
        short.reserveCapacity(members.count * 2)
        for (position, print) in zip(members.indices, prints) {
            _ = self.position(of: members[position].key, print, orAdd: position)
        }
    }

    /// The position of the member whose key is `key` (fingerprint `print`), or `nil` after
    /// noting the key at `position` as new.
    mutating func position(of key: String, _ print: KeyPrint, orAdd position: Int) -> Int? {
        if print.length >= 0 {
            let short = Short(low: print.low, high: print.high, length: print.length)
            if let seen = self.short[short] { return seen }
            self.short[short] = position
        } else {
            if let seen = long[key] { return seen }
            long[key] = position
        }
        return nil
    }
}
