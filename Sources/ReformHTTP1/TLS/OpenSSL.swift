import ReformSystem

/// The system OpenSSL's functions (`libssl.so.3`, Debian's libssl3), loaded the first time an
/// `https://` request goes through the built-in client, not linked: a run that sends no https
/// request pays nothing for it, and a machine without libssl still runs everything else (https then
/// goes through AsyncHTTPClient's BoringSSL, as before). OpenSSL, rather than that BoringSSL,
/// because BoringSSL is an internal module of swift-nio-ssl that only its channel handlers use.
///
/// Pointers to OpenSSL's objects (`SSL_CTX *`, `SSL *`, `BIO *`, `X509 *`) are opaque here; the
/// constants are OpenSSL 3.0's, named after their macros.
struct OpenSSL: @unchecked Sendable {
    typealias Pointer = OpaquePointer
    /// `int (*)(int preverify_ok, X509_STORE_CTX *)`.
    typealias VerifyCallback = @convention(c) (Int32, Pointer?) -> Int32
    /// `int (*)(SSL *, void *arg)`.
    typealias CertificateCallback = @convention(c) (Pointer?, UnsafeMutableRawPointer?) -> Int32

    let clientMethod: @convention(c) () -> Pointer?
    let contextNew: @convention(c) (Pointer?) -> Pointer?
    let contextFree: @convention(c) (Pointer?) -> Void
    let contextDefaultPaths: @convention(c) (Pointer?) -> Int32
    let contextLoadLocations: @convention(c) (Pointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let contextCertificateChain: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
    let contextPrivateKey: @convention(c) (Pointer?, UnsafePointer<CChar>?, Int32) -> Int32
    let contextCheckKey: @convention(c) (Pointer?) -> Int32
    let contextVerify: @convention(c) (Pointer?, Int32, VerifyCallback?) -> Void
    let contextCertificateCallback: @convention(c) (Pointer?, CertificateCallback?, UnsafeMutableRawPointer?) -> Void
    let storeCurrentCertificate: @convention(c) (Pointer?) -> Pointer?
    let storeData: @convention(c) (Pointer?, Int32) -> Pointer?
    let storeSessionIndex: @convention(c) () -> Int32
    let contextControl: @convention(c) (Pointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int
    let contextOptions: @convention(c) (Pointer?, UInt64) -> UInt64
    let new: @convention(c) (Pointer?) -> Pointer?
    let free: @convention(c) (Pointer?) -> Void
    let control: @convention(c) (Pointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int
    let setHost: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
    let verifyParameters: @convention(c) (Pointer?) -> Pointer?
    let setIPAddress: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
    let setBIO: @convention(c) (Pointer?, Pointer?, Pointer?) -> Void
    let connect: @convention(c) (Pointer?) -> Int32
    let read: @convention(c) (Pointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    let write: @convention(c) (Pointer?, UnsafeRawPointer?, Int32) -> Int32
    let error: @convention(c) (Pointer?, Int32) -> Int32
    let verifyResult: @convention(c) (Pointer?) -> Int
    let verifyErrorText: @convention(c) (Int) -> UnsafePointer<CChar>?
    let issuerName: @convention(c) (Pointer?) -> Pointer?
    let nameLine: @convention(c) (Pointer?, UnsafeMutablePointer<CChar>?, Int32) -> UnsafeMutablePointer<CChar>?
    let memoryMethod: @convention(c) () -> Pointer?
    let bioNew: @convention(c) (Pointer?) -> Pointer?
    let bioRead: @convention(c) (Pointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    let bioWrite: @convention(c) (Pointer?, UnsafeRawPointer?, Int32) -> Int32
    let bioPending: @convention(c) (Pointer?) -> Int
    let errorGet: @convention(c) () -> UInt
    let errorText: @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void
    let errorClear: @convention(c) () -> Void

    // SSL_get_error's answers.
    static let errorSSL: Int32 = 1
    static let errorWantRead: Int32 = 2
    static let errorWantWrite: Int32 = 3
    static let errorSyscall: Int32 = 5
    static let errorZeroReturn: Int32 = 6
    /// SSL_VERIFY_PEER.
    static let verifyPeer: Int32 = 1
    /// SSL_FILETYPE_PEM.
    static let pem: Int32 = 1
    /// SSL_CTRL_SET_MIN_PROTO_VERSION, and TLS1_2_VERSION for it.
    static let setMinimumVersion: Int32 = 123
    static let tls12 = 0x0303
    /// SSL_CTRL_SET_TLSEXT_HOSTNAME with TLSEXT_NAMETYPE_host_name: the SNI name.
    static let setServerName: Int32 = 55
    /// SSL_OP_IGNORE_UNEXPECTED_EOF: a server that closes without close_notify ends the stream
    /// (the HTTP reader knows whether the response was complete).
    static let ignoreUnexpectedEOF: UInt64 = 1 << 7
    /// X509_V_ERR_HOSTNAME_MISMATCH and X509_V_ERR_IP_ADDRESS_MISMATCH.
    static let hostnameMismatch = 62
    static let addressMismatch = 64

    /// The library, loaded once; the failure says why it cannot be.
    static let shared: Result<OpenSSL, TLSProblem> = load()

    private static func load() -> Result<OpenSSL, TLSProblem> {
        guard let library = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(.unavailable("the system OpenSSL cannot be loaded (\(reason)); install it (apt-get install libssl3)"))
        }
        // libcrypto's functions are found through libssl, which depends on it.
        let names = [
            "TLS_client_method", "SSL_CTX_new", "SSL_CTX_free", "SSL_CTX_set_default_verify_paths", "SSL_CTX_load_verify_locations",
            "SSL_CTX_use_certificate_chain_file", "SSL_CTX_use_PrivateKey_file", "SSL_CTX_check_private_key", "SSL_CTX_set_verify",
            "SSL_CTX_set_cert_cb", "X509_STORE_CTX_get_current_cert", "X509_STORE_CTX_get_ex_data",
            "SSL_get_ex_data_X509_STORE_CTX_idx", "SSL_CTX_ctrl", "SSL_CTX_set_options", "SSL_new", "SSL_free", "SSL_ctrl", "SSL_set1_host",
            "SSL_get0_param",
            "X509_VERIFY_PARAM_set1_ip_asc", "SSL_set_bio", "SSL_connect", "SSL_read", "SSL_write", "SSL_get_error",
            "SSL_get_verify_result", "X509_verify_cert_error_string", "X509_get_issuer_name", "X509_NAME_oneline", "BIO_s_mem", "BIO_new",
            "BIO_read", "BIO_write", "BIO_ctrl_pending", "ERR_get_error", "ERR_error_string_n",
            "ERR_clear_error",
        ]
        let missing = names.filter { dlsym(library, $0) == nil }
        guard missing.isEmpty else {
            return .failure(.unavailable("the system OpenSSL lacks \(missing.joined(separator: ", ")); install OpenSSL 3 (libssl3)"))
        }
        // Every name is there (checked above): each address becomes its C function's type.
        func symbol<F>(_ name: String, as type: F.Type) -> F {
            unsafeBitCast(dlsym(library, name), to: type)
        }
        let made = OpenSSL(
            clientMethod: symbol("TLS_client_method", as: (@convention(c) () -> Pointer?).self),
            contextNew: symbol("SSL_CTX_new", as: (@convention(c) (Pointer?) -> Pointer?).self),
            contextFree: symbol("SSL_CTX_free", as: (@convention(c) (Pointer?) -> Void).self),
            contextDefaultPaths: symbol("SSL_CTX_set_default_verify_paths", as: (@convention(c) (Pointer?) -> Int32).self),
            contextLoadLocations: symbol(
                "SSL_CTX_load_verify_locations",
                as: (@convention(c) (Pointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32).self),
            contextCertificateChain: symbol(
                "SSL_CTX_use_certificate_chain_file", as: (@convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32).self),
            contextPrivateKey: symbol(
                "SSL_CTX_use_PrivateKey_file", as: (@convention(c) (Pointer?, UnsafePointer<CChar>?, Int32) -> Int32).self),
            contextCheckKey: symbol("SSL_CTX_check_private_key", as: (@convention(c) (Pointer?) -> Int32).self),
            contextVerify: symbol("SSL_CTX_set_verify", as: (@convention(c) (Pointer?, Int32, VerifyCallback?) -> Void).self),
            contextCertificateCallback: symbol(
                "SSL_CTX_set_cert_cb", as: (@convention(c) (Pointer?, CertificateCallback?, UnsafeMutableRawPointer?) -> Void).self),
            storeCurrentCertificate: symbol("X509_STORE_CTX_get_current_cert", as: (@convention(c) (Pointer?) -> Pointer?).self),
            storeData: symbol("X509_STORE_CTX_get_ex_data", as: (@convention(c) (Pointer?, Int32) -> Pointer?).self),
            storeSessionIndex: symbol("SSL_get_ex_data_X509_STORE_CTX_idx", as: (@convention(c) () -> Int32).self),
            contextControl: symbol("SSL_CTX_ctrl", as: (@convention(c) (Pointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int).self),
            contextOptions: symbol("SSL_CTX_set_options", as: (@convention(c) (Pointer?, UInt64) -> UInt64).self),
            new: symbol("SSL_new", as: (@convention(c) (Pointer?) -> Pointer?).self),
            free: symbol("SSL_free", as: (@convention(c) (Pointer?) -> Void).self),
            control: symbol("SSL_ctrl", as: (@convention(c) (Pointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int).self),
            setHost: symbol("SSL_set1_host", as: (@convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32).self),
            verifyParameters: symbol("SSL_get0_param", as: (@convention(c) (Pointer?) -> Pointer?).self),
            setIPAddress: symbol("X509_VERIFY_PARAM_set1_ip_asc", as: (@convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32).self),
            setBIO: symbol("SSL_set_bio", as: (@convention(c) (Pointer?, Pointer?, Pointer?) -> Void).self),
            connect: symbol("SSL_connect", as: (@convention(c) (Pointer?) -> Int32).self),
            read: symbol("SSL_read", as: (@convention(c) (Pointer?, UnsafeMutableRawPointer?, Int32) -> Int32).self),
            write: symbol("SSL_write", as: (@convention(c) (Pointer?, UnsafeRawPointer?, Int32) -> Int32).self),
            error: symbol("SSL_get_error", as: (@convention(c) (Pointer?, Int32) -> Int32).self),
            verifyResult: symbol("SSL_get_verify_result", as: (@convention(c) (Pointer?) -> Int).self),
            verifyErrorText: symbol("X509_verify_cert_error_string", as: (@convention(c) (Int) -> UnsafePointer<CChar>?).self),
            issuerName: symbol("X509_get_issuer_name", as: (@convention(c) (Pointer?) -> Pointer?).self),
            nameLine: symbol(
                "X509_NAME_oneline",
                as: (@convention(c) (Pointer?, UnsafeMutablePointer<CChar>?, Int32) -> UnsafeMutablePointer<CChar>?).self),
            memoryMethod: symbol("BIO_s_mem", as: (@convention(c) () -> Pointer?).self),
            bioNew: symbol("BIO_new", as: (@convention(c) (Pointer?) -> Pointer?).self),
            bioRead: symbol("BIO_read", as: (@convention(c) (Pointer?, UnsafeMutableRawPointer?, Int32) -> Int32).self),
            bioWrite: symbol("BIO_write", as: (@convention(c) (Pointer?, UnsafeRawPointer?, Int32) -> Int32).self),
            bioPending: symbol("BIO_ctrl_pending", as: (@convention(c) (Pointer?) -> Int).self),
            errorGet: symbol("ERR_get_error", as: (@convention(c) () -> UInt).self),
            errorText: symbol("ERR_error_string_n", as: (@convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void).self),
            errorClear: symbol("ERR_clear_error", as: (@convention(c) () -> Void).self))
        return .success(made)
    }

    /// The oldest error queued by the last failed call, as OpenSSL words it, and the queue cleared.
    func lastError() -> String {
        let code = errorGet()
        errorClear()
        guard code != 0 else { return "" }
        var text = [CChar](repeating: 0, count: 256)
        errorText(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
