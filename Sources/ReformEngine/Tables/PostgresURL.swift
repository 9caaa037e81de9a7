/// A PostgreSQL connection string (`postgres://user:secret@host:5432/db?sslmode=disable`, or
/// libpq's `host=… dbname=… password=…`), with what must never be printed.
///
/// The password in the URL's user part, a `password=` query parameter or keyword, and any other
/// parameter whose name says it is a secret (`sslpassword`) are hidden as `***` in
/// ``displayName`` and in every message ``redact(_:)`` passes.
struct PostgresURL: Sendable {
    /// The string libpq connects with (secrets included).
    let connectionString: String
    /// The string with every secret replaced by `***`: for messages, logs and `--stats`.
    let displayName: String
    private let redactor: Redactor

    init(_ text: String) {
        connectionString = text
        let secrets = PostgresURL.secrets(in: text)
        redactor = Redactor(values: secrets)
        var shown = text
        // Short secrets (which the redactor keeps, to not garble text) are hidden where they stand.
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            shown = PostgresURL.hide(secret, in: shown)
        }
        displayName = shown
    }

    /// `text` with the URL's secrets hidden.
    func redact(_ text: String) -> String {
        var out = redactor.redact(text)
        if out.contains(connectionString) { out = out.replacing(connectionString, with: displayName) }
        return out
    }

    /// The password of the user part, and the values of `password=`-like parameters.
    static func secrets(in text: String) -> [String] {
        var found: [String] = []
        if let scheme = text.firstRange(of: "://") {
            let rest = text[scheme.upperBound...]
            let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                let password = String(authority[authority.index(after: colon)..<at])
                found.append(password)
                if let decoded = password.removingPercentEncodingIfValid, decoded != password { found.append(decoded) }
            }
            if let question = rest.firstIndex(of: "?") {
                for pair in rest[rest.index(after: question)...].split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, isSecretName(String(parts[0])) { found.append(String(parts[1])) }
                }
            }
        } else {
            // Keyword form: key=value pairs separated by spaces (values may be quoted).
            for pair in text.split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, isSecretName(String(parts[0])) {
                    found.append(String(parts[1]).trimmingCharacters(in: "'"))
                }
            }
        }
        return found.filter { !$0.isEmpty }
    }

    private static func isSecretName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.contains("password") || lower.contains("secret") || lower.contains("token")
    }

    /// `text` with `secret` replaced where it stands as a whole value (after `:` or `=`).
    private static func hide(_ secret: String, in text: String) -> String {
        var out = text
        for prefix in [":", "="] {
            for suffix in ["@", "&", " ", "'", ""] where suffix.isEmpty ? out.hasSuffix(prefix + secret) : true {
                let whole = prefix + secret + suffix
                if suffix.isEmpty {
                    out = String(out.dropLast(whole.count)) + prefix + "***"
                } else if out.contains(whole) {
                    out = out.replacing(whole, with: prefix + "***" + suffix)
                }
            }
        }
        return out
    }
}

extension String {
    /// The string with `%XX` escapes decoded, or `nil` when an escape is not valid UTF-8.
    fileprivate var removingPercentEncodingIfValid: String? {
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The string without `character` at either end.
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var out = self[...]
        while out.first == character { out = out.dropFirst() }
        while out.last == character { out = out.dropLast() }
        return String(out)
    }
}
