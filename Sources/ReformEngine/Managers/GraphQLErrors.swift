import ReformSDK

/// A GraphQL response's `errors` (the spec's "Response" section): they come with status 200, and
/// often with `data` null or partial, so a `graphql:` manager checks for them on every page.
enum GraphQLErrors {
    /// The most errors a summary names; the rest are counted.
    static let shown = 3

    /// `message (at path a.b.0; code NOT_FOUND)` for the first errors of `body`, or `nil` when it
    /// has no `errors` or an empty list.
    static func summary(of body: Value) -> String? {
        guard let errors = body.objectValue?["errors"]?.arrayValue, !errors.isEmpty else { return nil }
        var parts: [String] = []
        for error in errors.prefix(shown) {
            let message = error.objectValue?["message"]?.stringValue ?? JSON.compactString(error)
            var details: [String] = []
            if let path = error.objectValue?["path"]?.arrayValue, !path.isEmpty {
                details.append("at path " + path.map(\.plainText).joined(separator: "."))
            }
            if let code = error.objectValue?["extensions"]?.objectValue?["code"]?.stringValue ?? error.objectValue?["type"]?.stringValue {
                details.append("code " + code)
            }
            parts.append(details.isEmpty ? "'\(message)'" : "'\(message)' (\(details.joined(separator: "; ")))")
        }
        if errors.count > shown { parts.append("and \(errors.count - shown) more") }
        return parts.joined(separator: "; ")
    }

    /// Whether `body`'s errors say the rate limit is spent: GitHub's `RATE_LIMITED` type,
    /// Shopify's `THROTTLED` code, or a message about the rate limit.
    static func isRateLimited(_ body: Value) -> Bool {
        guard let errors = body.objectValue?["errors"]?.arrayValue else { return false }
        return errors.contains { error in
            let object = error.objectValue
            let code = (object?["extensions"]?.objectValue?["code"]?.stringValue ?? object?["type"]?.stringValue ?? "").uppercased()
            if code == "RATE_LIMITED" || code == "THROTTLED" { return true }
            return object?["message"]?.stringValue?.lowercased().contains("rate limit") == true
        }
    }
}
