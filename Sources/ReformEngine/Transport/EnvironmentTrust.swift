import ReformSystem

/// The files of the `SSL_CERT_DIR` folders (`:`-separated) that may hold certificates to trust, as
/// OpenSSL tools trust them, for both HTTP clients.
enum EnvironmentTrust {
    /// Those the built-in client's OpenSSL would not find by itself, found once per process: it
    /// looks a certificate up by its subject's hash (`c_rehash` links, `5ad8a5d6.0`), so a folder
    /// with such links is left to it (Debian's /etc/ssl/certs: reading its 280 files at start cost
    /// 40 ms), and the files of a folder without them are read.
    static let folderCertificates: [String] = files(leavingHashedFolders: true)

    /// Every file that may be a certificate (AsyncHTTPClient's BoringSSL reads no hashed folder).
    static func files(leavingHashedFolders: Bool) -> [String] {
        let folders = getenv("SSL_CERT_DIR").map { String(cString: $0).split(separator: ":").map(String.init) } ?? []
        var files: [String] = []
        for folder in folders where FilePaths.isDirectory(folder) {
            let names = (FilePaths.contents(of: folder) ?? []).sorted()
            if leavingHashedFolders, names.contains(where: isHashLink) { continue }
            for name in names where !name.hasPrefix(".") {
                let path = FilePaths.resolve(name, against: folder)
                // A certificate is a few KiB; a large file there is not one.
                if FilePaths.isFile(path), (FilePaths.regularFileSize(path) ?? 0) < 1 << 20 { files.append(path) }
            }
        }
        return files
    }

    /// Whether `name` is a `c_rehash` link's: eight hexadecimal digits, a dot, a number.
    private static func isHashLink(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 8 && parts[0].allSatisfy(\.isHexDigit) && !parts[1].isEmpty
            && parts[1].allSatisfy(\.isNumber)
    }
}
