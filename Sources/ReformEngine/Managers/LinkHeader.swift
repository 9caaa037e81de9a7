/// RFC 8288 `Link` headers: `<https://api/x?page=2>; rel="next", <…>; rel="last"`.
public enum LinkHeader {
    /// The target of the link whose relation types include `next`, if any.
    public static func next(_ header: String) -> String? {
        target(of: "next", in: header)
    }

    /// The target of the first link whose `rel` (a space-separated list, any case) includes `relation`.
    public static func target(of relation: String, in header: String) -> String? {
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { return nil }
            let target = rest[rest.index(after: open)..<close]
            // Parameters run to the next link: a ',' outside quotes.
            var index = rest.index(after: close)
            var inQuotes = false
            while index < rest.endIndex {
                let c = rest[index]
                if c == "\"" { inQuotes.toggle() } else if c == "," && !inQuotes { break }
                index = rest.index(after: index)
            }
            if relations(in: rest[rest.index(after: close)..<index]).contains(relation.lowercased()) {
                return String(target)
            }
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : ""
        }
        return nil
    }

    private static func relations(in parameters: Substring) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: " ").lowercased() == "rel" else { continue }
            let value = pair[1].trimmingCharacters(in: " ").trimmingCharacters(in: "\"")
            return value.lowercased().split(separator: " ").map(String.init)
        }
        return []
    }
}
