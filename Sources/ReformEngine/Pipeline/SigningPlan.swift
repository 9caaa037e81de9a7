/// How a `sign` interceptor signs each request: everything but the secret, which stays a `${VAR}`
/// template (in ``InterceptorPlan/sign(_:secret:)``) or a value the library user holds.
public struct SigningPlan: Sendable, Hashable {
    /// The keyed hash: HMAC over SHA-1, SHA-256 or SHA-512.
    public enum Algorithm: String, Sendable, CaseIterable {
        /// HMAC-SHA1 (20 bytes); only for services that still ask for it.
        case hmacSHA1 = "hmac-sha1"
        /// HMAC-SHA256 (32 bytes).
        case hmacSHA256 = "hmac-sha256"
        /// HMAC-SHA512 (64 bytes).
        case hmacSHA512 = "hmac-sha512"
    }

    /// How the signature bytes are written into the header.
    public enum Encoding: String, Sendable, CaseIterable {
        /// Lower-case hexadecimal.
        case hex
        /// Standard Base64 with padding (RFC 4648 section 4).
        case base64
    }

    /// The keyed hash.
    public var algorithm: Algorithm
    /// The header the signature goes in (`X-Signature`).
    public var header: String
    /// How the signature is written.
    public var encoding: Encoding
    /// The canonical string that is signed.
    public var message: SigningMessage
    /// The header that carries the unix time (seconds) used for `{timestamp}`, when any.
    public var timestampHeader: String?
    /// Text written before the encoded signature (`sha256=`).
    public var prefix: String

    /// A plan signing `message` with `algorithm` into `header`.
    public init(
        algorithm: Algorithm = .hmacSHA256, header: String, encoding: Encoding = .hex, message: SigningMessage,
        timestampHeader: String? = nil, prefix: String = ""
    ) {
        self.algorithm = algorithm
        self.header = header
        self.encoding = encoding
        self.message = message
        self.timestampHeader = timestampHeader
        self.prefix = prefix
    }
}
