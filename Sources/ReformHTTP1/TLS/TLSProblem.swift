/// Why a TLS connection of the built-in client could not be made or used, in terms a user can act
/// on (the engine words each as one line of advice).
package enum TLSProblem: Error, Equatable, Sendable {
    /// No authority the client trusts issued the server's certificate: its issuer (`CN=…`) and
    /// OpenSSL's reason.
    case untrusted(issuer: String, reason: String)
    /// The certificate is not for the host name (or address) asked for, nor for `server_name`.
    case wrongName(String)
    /// The server refused the handshake for want of a client certificate it trusts (its alert).
    case clientCertificateRefused(String)
    /// The service's TLS files cannot be used (which one, and why).
    case files(String)
    /// The handshake failed for another reason (OpenSSL's words).
    case handshake(String)
    /// The system OpenSSL cannot be loaded (how to install it).
    case unavailable(String)
}
