/// `{name}` placeholders in a manager's path (`/users/{id}`).
enum PathTemplate {
    /// The placeholder names in `path`, in order.
    static func names(in path: String) -> [String] {
        var names: [String] = []
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
