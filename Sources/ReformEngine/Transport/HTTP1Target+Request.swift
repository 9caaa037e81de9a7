import ReformHTTP1
import ReformSystem

extension HTTP1Target {
    /// The target of `request` (its origin or base URL, path and query) when the built-in client
    /// can send it: the same as parsing its ``HTTPRequest/url``, without building and parsing the
    /// whole URL for every page. An `https` target carries the service's `tls:` settings.
    init?(request: HTTPRequest) {
        let base = request.origin ?? request.baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
        let queryString = request.query.isEmpty ? "" : request.queryString
        if let target = HTTP1Target(base: base, path: request.path, queryString: queryString) {
            self = target
        } else if let target = HTTP1Target(url: request.url) {
            self = target
        } else {
            return nil
        }
        if secure {
            let plan = request.tls ?? TLSPlan()
            tls = HTTP1TLS(
                caFile: plan.caFile, clientCertificate: plan.clientCertificate, clientKey: plan.clientKey, serverName: plan.serverName,
                environmentCertificates: EnvironmentTrust.folderCertificates)
        }
    }
}

/// The certificates of the `SSL_CERT_DIR` folders (`:`-separated) that OpenSSL would not find by
/// itself, found once per process: it looks a certificate up by its subject's hash (`c_rehash`
/// links, `5ad8a5d6.0`), so a folder with such links is left to it (Debian's /etc/ssl/certs: reading
/// its 280 files at start cost 40 ms), and the files of a folder without them are read.
enum EnvironmentTrust {
    static let folderCertificates: [String] = {
        let folders = getenv("SSL_CERT_DIR").map { String(cString: $0).split(separator: ":").map(String.init) } ?? []
        var files: [String] = []
        for folder in folders where FilePaths.isDirectory(folder) {
            let names = (FilePaths.contents(of: folder) ?? []).sorted()
            if names.contains(where: isHashLink) { continue }
            for name in names where !name.hasPrefix(".") {
                let path = FilePaths.resolve(name, against: folder)
                // A certificate is a few KiB; a large file there is not one.
                if FilePaths.isFile(path), (FilePaths.regularFileSize(path) ?? 0) < 1 << 20 { files.append(path) }
            }
        }
        return files
    }()

    /// Whether `name` is a `c_rehash` link's: eight hexadecimal digits, a dot, a number.
    private static func isHashLink(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 8 && parts[0].allSatisfy(\.isHexDigit) && !parts[1].isEmpty
            && parts[1].allSatisfy(\.isNumber)
    }
}
