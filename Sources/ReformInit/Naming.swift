/// How `reform init` names what it writes: pipeline, service and manager names, key short names
/// and key constants, from whatever an API calls things (`listPets`, `repos/list-for-org`,
/// `Swagger Petstore - OpenAPI 3.0`, `X-Rate-Limit`).
enum Naming {
    /// The words of `text`: split at anything but letters and digits and where a lower-case letter
    /// or digit meets an upper-case one (`listPetsByID` → `list`, `Pets`, `By`, `ID`).
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in text {
            guard character.isLetter || character.isNumber, character.isASCII else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let previous, character.isUppercase, previous.isLowercase || previous.isNumber, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(character)
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `list_pets_by_id`: a manager's or key's name.
    static func snake(_ text: String) -> String {
        let name = words(text).map { $0.lowercased() }.joined(separator: "_")
        guard let first = name.first else { return "field" }
        return first.isNumber ? "n_" + name : name
    }

    /// `petstore` (from `Swagger Petstore - OpenAPI 3.0`): a pipeline's or service's name, at most
    /// `maxWords` words, without what every API's title says (`API`, `OpenAPI`, `Swagger`, versions).
    static func kebab(_ text: String, maxWords: Int = 3) -> String {
        var title = text
        for noise in ["openapi", "OpenAPI", "OpenApi", "Openapi", "OPENAPI", "swagger", "Swagger", "SWAGGER"] {
            title = title.replacing(noise, with: " ")
        }
        let kept = words(title).map { $0.lowercased() }.filter { word in
            !["api", "the", "rest", "specification", "spec"].contains(word) && !word.allSatisfy(\.isNumber)
                && !(word.first == "v" && word.dropFirst().allSatisfy(\.isNumber) && word.count > 1)
        }
        let name = kept.prefix(maxWords).joined(separator: "-")
        return name.isEmpty ? "api" : name
    }

    /// Words that read as acronyms in a constant: `kPetKeyID`, not `kPetKeyId`.
    private static let acronyms: Set<String> = ["id", "url", "uri", "uuid", "api", "html", "ip", "sku", "iso", "utc", "ssh", "ssl", "dns"]

    /// `PetStore`: words joined with capitals, acronyms in capitals.
    static func pascal(_ text: String) -> String {
        words(text).map { word in
            let lower = word.lowercased()
            if acronyms.contains(lower) { return lower.uppercased() }
            // A word already in capitals (`HTTP`) stays as written; others get one capital.
            if word.count > 1, word == word.uppercased(), word.contains(where: \.isLetter) { return word }
            return word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
    }

    /// `VARIABLE_NAME` for an environment variable.
    static func environment(_ text: String) -> String {
        let name = words(text).map { $0.uppercased() }.joined(separator: "_")
        return name.isEmpty ? "API" : name
    }

    /// `name`, or `name_2`, `name_3`… when `taken` has it; the result is added to `taken`.
    static func unique(_ name: String, in taken: inout Set<String>) -> String {
        var candidate = name
        var suffix = 2
        while taken.contains(candidate) {
            candidate = "\(name)_\(suffix)"
            suffix += 1
        }
        taken.insert(candidate)
        return candidate
    }

    /// A field name as a path segment: quoted when it holds a dot, bracket, quote or ends in `?`.
    static func pathSegment(_ field: String) -> String {
        let plain = !field.isEmpty && !field.contains { ".[]\"".contains($0) } && !field.hasSuffix("?")
        return plain ? field : "\"" + field.replacing("\"", with: "\\\"") + "\""
    }
}
