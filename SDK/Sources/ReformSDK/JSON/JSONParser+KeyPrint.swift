/// A short key packed into two words, for cache look-ups and duplicate checks without comparing
/// strings; keys longer than 16 bytes (or with escapes) all share ``long`` and are compared as strings.
@frozen @usableFromInline
internal struct KeyPrint: Equatable {
    var low: UInt64
    var high: UInt64
    var length: Int

    init(low: UInt64, high: UInt64, length: Int) {
        self.low = low
        self.high = high
        self.length = length
    }

    static var long: KeyPrint { KeyPrint(low: 0, high: 0, length: -2) }

    /// The fingerprint of a decoded key (one that had escapes), or ``long``.
    init(decoded key: String) {
        guard key.utf8.count <= 16 else {
            self = .long
            return
        }
        var low: UInt64 = 0
        var high: UInt64 = 0
        for (k, byte) in key.utf8.enumerated() {
            if k < 8 { low |= UInt64(byte) << (8 * UInt64(k)) } else { high |= UInt64(byte) << (8 * UInt64(k - 8)) }
        }
        self.init(low: low, high: high, length: key.utf8.count)
    }

    @inline(__always)
    init(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var k = 0
        while k < length && k < 8 {
            low |= UInt64(bytes[k]) << (8 * UInt64(k))
            k += 1
        }
        while k < length {
            high |= UInt64(bytes[k]) << (8 * UInt64(k - 8))
            k += 1
        }
        self.init(low: low, high: high, length: length)
    }

    /// The fingerprint of the `length` (at most 16) bytes at `bytes`, when 16 bytes are readable there.
    @inline(__always)
    init(loading bytes: UnsafePointer<UInt8>, _ length: Int) {
        let raw = UnsafeRawPointer(bytes)
        var low = raw.loadUnaligned(as: UInt64.self)
        var high = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        if length < 8 {
            low &= (1 &<< UInt64(8 * length)) &- 1
            high = 0
        } else if length < 16 {
            high &= (1 &<< UInt64(8 * (length - 8))) &- 1
        }
        self.init(low: low, high: high, length: length)
    }

    /// The key cache slot for this key.
    @inline(__always)
    var slot: Int {
        var h = low &* 0x9E37_79B9_7F4A_7C15
        h ^= (high &+ UInt64(length)) &* 0xC2B2_AE3D_27D4_EB4F
        return Int(truncatingIfNeeded: h >> 56)
    }
}

@frozen @usableFromInline
internal struct KeyCacheEntry {
    var print: KeyPrint
    var key: String
}
