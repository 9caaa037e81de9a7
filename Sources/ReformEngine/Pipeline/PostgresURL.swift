/// A PostgreSQL connection string (`postgres://user:secret@host:5432/db?sslmode=disable`, or
/// libpq's `host=… dbname=… password=…`), with what must never be printed.
///
/// The password in the URL's user part, a `password=` query parameter or keyword, and any other
/// parameter whose name says it is a secret (`sslpassword`) are hidden as `***` in
/// ``displayName`` and in every message ``redact(_:)`` passes — whole, whatever they hold: a
/// keyword value in quotes (`password='two words'`), a URL password holding `@`, `/`, `#` or `:`
/// (as `postgres://user:${PGPASSWORD}@host/db` gives when the variable holds them), percent-encoded
/// or not (reliability audit M4).
struct PostgresURL: Sendable {
    /// The string libpq connects with (secrets included): as written, but for a URL password's
    /// `@` and `/`, percent-encoded, which libpq would otherwise take for the end of the password
    /// (and then print the rest as a host or database name).
    let connectionString: String
    /// The string with every secret replaced by `***`: for messages, logs and `--stats`.
    let displayName: String
    /// The string as written.
    private let written: String
    private let redactor: Redactor

    init(_ text: String) {
        written = text
        let ranges = PostgresURL.secretRanges(in: text)
        var secrets = ranges.map { String(text[$0]) }
        secrets += secrets.compactMap { secret in secret.removingPercentEncodingIfValid.flatMap { $0 == secret ? nil : $0 } }
        secrets += secrets.compactMap { secret in PostgresURL.unquoted(secret).flatMap { $0 == secret ? nil : $0 } }
        var connecting = text
        if let password = PostgresURL.userPassword(in: text), text[password].contains(where: { $0 == "@" || $0 == "/" }) {
            let encoded = String(text[password]).replacing("@", with: "%40").replacing("/", with: "%2F")
            connecting.replaceSubrange(password, with: encoded)
            secrets.append(encoded)
        }
        connectionString = connecting
        redactor = Redactor(values: secrets)
        var shown = text
        for range in ranges.reversed() { shown.replaceSubrange(range, with: "***") }
        displayName = shown
    }

    /// `text` with the URL's secrets hidden.
    func redact(_ text: String) -> String {
        var out = text
        for form in [connectionString, written] where out.contains(form) { out = out.replacing(form, with: displayName) }
        return redactor.redact(out)
    }

    /// The password of the user part, and the values of `password=`-like parameters, as written.
    static func secrets(in text: String) -> [String] {
        secretRanges(in: text).map { String(text[$0]) }
    }

    /// Where the secrets stand in `text`, in order: the user part's password and every value of
    /// a parameter whose name says it is a secret (in a keyword string, with its quotes).
    static func secretRanges(in text: String) -> [Range<String.Index>] {
        guard let scheme = text.firstRange(of: "://") else { return keywordSecretRanges(in: text) }
        var ranges: [Range<String.Index>] = []
        let password = userPassword(in: text)
        if let password { ranges.append(password) }
        let afterUser = password?.upperBound ?? scheme.upperBound
        guard let question = text[afterUser...].firstIndex(of: "?") else { return ranges }
        var start = text.index(after: question)
        while start < text.endIndex {
            let end = text[start...].firstIndex(of: "&") ?? text.endIndex
            if let equals = text[start..<end].firstIndex(of: "="), isSecretName(String(text[start..<equals])) {
                let value = text.index(after: equals)..<end
                if !value.isEmpty { ranges.append(value) }
            }
            start = end < text.endIndex ? text.index(after: end) : end
        }
        return ranges
    }

    /// The password of a URL's user part (`user:PASSWORD@host`), or nil. The user part ends at
    /// the last `@` before the query (`?`), so that a password holding `@`, `/`, `#` or `:` is
    /// taken whole; when none comes before it, the `?` is the password's (`user:a?b@host`) if no
    /// `/` comes between the user's `:` and it (`host:5432/db?password=a@b` has no user part).
    static func userPassword(in text: String) -> Range<String.Index>? {
        guard let scheme = text.firstRange(of: "://") else { return nil }
        let rest = text[scheme.upperBound...]
        let query = rest.firstIndex(of: "?") ?? rest.endIndex
        if let at = rest[..<query].lastIndex(of: "@") {
            guard let colon = rest[..<at].firstIndex(of: ":") else { return nil }
            return rest.index(after: colon) < at ? rest.index(after: colon)..<at : nil
        }
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<query].firstIndex(of: ":"), !rest[colon..<query].contains("/")
        else { return nil }
        return rest.index(after: colon)..<at
    }

    /// The values of secret keywords in libpq's keyword form (`key=value`, spaces allowed around
    /// `=`, values in single quotes with `\'` and `\\` escapes, or up to the next space).
    private static func keywordSecretRanges(in text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var i = text.startIndex
        func skipSpaces() { while i < text.endIndex, text[i].isWhitespace { i = text.index(after: i) } }
        while true {
            skipSpaces()
            guard i < text.endIndex else { return ranges }
            let keyStart = i
            while i < text.endIndex, !text[i].isWhitespace, text[i] != "=" { i = text.index(after: i) }
            let key = String(text[keyStart..<i])
            skipSpaces()
            guard i < text.endIndex, text[i] == "=" else { continue }
            i = text.index(after: i)
            skipSpaces()
            let valueStart = i
            if i < text.endIndex, text[i] == "'" {
                i = text.index(after: i)
                while i < text.endIndex, text[i] != "'" {
                    if text[i] == "\\", text.index(after: i) < text.endIndex { i = text.index(after: i) }
                    i = text.index(after: i)
                }
                if i < text.endIndex { i = text.index(after: i) }
            } else {
                while i < text.endIndex, !text[i].isWhitespace {
                    if text[i] == "\\", text.index(after: i) < text.endIndex { i = text.index(after: i) }
                    i = text.index(after: i)
                }
            }
            if isSecretName(key), valueStart < i { ranges.append(valueStart..<i) }
        }
    }

    /// A quoted keyword value without its quotes and escapes (what libpq takes), or nil.
    private static func unquoted(_ value: String) -> String? {
        guard value.count >= 2, value.first == "'", value.last == "'" else { return nil }
        var out = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            out.append(character)
        }
        return out
    }

    private static func isSecretName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.contains("password") || lower.contains("secret") || lower.contains("token")
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
}
