import Crypto

extension SigningPlan {
    /// The header value for `message` signed with `secret`: the prefix, then the encoded HMAC.
    public func signature(of message: String, secret: String) -> String {
        let key = SymmetricKey(data: Array(secret.utf8))
        let bytes = Array(message.utf8)
        let mac: [UInt8]
        switch algorithm {
        case .hmacSHA1: mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: bytes, using: key))
        case .hmacSHA256: mac = Array(HMAC<SHA256>.authenticationCode(for: bytes, using: key))
        case .hmacSHA512: mac = Array(HMAC<SHA512>.authenticationCode(for: bytes, using: key))
        }
        return prefix + (encoding == .hex ? Hex.encode(mac) : Base64.encode(mac))
    }
}
