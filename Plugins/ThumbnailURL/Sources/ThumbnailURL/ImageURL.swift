/// An http(s) URL split into the parts a thumbnail rewrite changes.
struct ImageURL: Equatable {
    var scheme: Substring
    var host: Substring
    var path: Substring
    var query: Substring?
    var fragment: Substring?

    /// The parts of `text`, or nil when it is not an absolute http or https URL with a host.
    init?(_ text: String) {
        guard let separator = text.firstRange(of: "://") else { return nil }
        scheme = text[..<separator.lowerBound]
        guard ["http", "https"].contains(scheme.lowercased()) else { return nil }
        var rest = text[separator.upperBound...]
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        host = rest[..<slash]
        path = rest[slash...]
        guard !host.isEmpty, !host.contains(" ") else { return nil }
    }

    /// `size` and `format` added to the last path segment: `/a/b.jpg` → `/a/b_200x150.webp`.
    mutating func addSuffix(_ size: String, format: String?) {
        let segmentStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let segment = path[segmentStart...]
        var stem = segment
        var ext: Substring?
        if let dot = segment.lastIndex(of: "."), dot != segment.startIndex {
            stem = segment[..<dot]
            ext = segment[segment.index(after: dot)...]
        }
        let newExt = format ?? ext.map(String.init)
        let renamed = (stem.isEmpty ? "image" : String(stem)) + "_" + size + (newExt.map { "." + $0 } ?? "")
        path = Substring(String(path[..<segmentStart]) + (path.isEmpty ? "/" : "") + renamed)
    }

    /// Sets query parameters, replacing any of the same names and keeping the others in order.
    mutating func setQuery(_ parameters: [(String, String)]) {
        let names = Set(parameters.map(\.0))
        var kept = (query ?? "").split(separator: "&").filter { pair in
            !names.contains(String(pair.split(separator: "=", maxSplits: 1).first ?? ""))
        }.map(String.init)
        kept += parameters.map { "\($0)=\($1)" }
        query = Substring(kept.joined(separator: "&"))
    }

    /// The URL as text.
    var text: String {
        var out = String(scheme) + "://" + host + path
        if let query, !query.isEmpty { out += "?" + query }
        if let fragment { out += "#" + fragment }
        return out
    }
}
