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
}
