import Crypto

/// Lower-case hexadecimal, for signatures and body digests.
enum Hex {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The SHA-256 digest of `bytes`, in hex.
    static func sha256(_ bytes: [UInt8]) -> String { encode(SHA256.hash(data: bytes)) }
}
