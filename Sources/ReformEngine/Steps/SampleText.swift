/// The words the generated differential tests write steps with (``BuiltInStep/sample(_:using:)``):
/// names, values, conditions and templates over the keys generated records carry, chosen to
/// reach the edges of each tier (numbers in every form, escapes, CJK, missing keys).
package enum SampleText {
    /// Names a step may give a new key.
    package static let newNames = ["label", "where", "tag", "title", "note", "place", "extra", "city", "lat"]
    /// Every conversion's name.
    package static let conversions = ["int", "double", "bool", "string", "date"]
    /// Constant values, as YAML writes them.
    package static let values = ["0", "-1", "1.5", "none", "''", "true", "null", "上海", "2.50", "1e2"]
    /// Keys landed records usually carry, when the keys are not known.
    package static let landedKeys = ["id", "name", "price", "when", "loc", "ok", "tags", "floor"]

    /// A random non-empty selection of `choices` in their order, at least `atLeast` of them.
    package static func some(_ choices: [String], atLeast: Int, using random: inout some RandomNumberGenerator) -> [String] {
        var picked = choices.filter { _ in random.chance(2) }
        while picked.count < min(atLeast, choices.count) {
            if let extra = choices.randomElement(using: &random), !picked.contains(extra) { picked.append(extra) }
        }
        return picked
    }

    /// `text` as a YAML double-quoted scalar.
    package static func quote(_ text: String) -> String {
        "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// A template over `fields`: literal text and fields; a field that is not always there
    /// (`nowhere`, `deep`, `tags`) mostly optional.
    package static func template(fields: [String], using random: inout some RandomNumberGenerator) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            if random.chance(2) { text += [" ", "·", "#", "(", ") ", "上", "\\", "\"", "", "a b"].randomElement(using: &random) ?? "" }
            let field = fields.randomElement(using: &random) ?? "id"
            let rare = field.contains("nowhere") || field == "deep" || field == "tags" || field == "loc"
            let optional = rare ? !random.chance(8) : random.chance(3)
            text += "{" + field + (optional ? "?" : "") + "}"
        }
        return text
    }

    /// A filter condition over `keys`, nesting `and`/`or`/`not` up to `depth` levels.
    package static func condition(keys: [String], depth: Int, using random: inout some RandomNumberGenerator) -> String {
        if depth > 0, random.chance(2) {
            let left = condition(keys: keys, depth: depth - 1, using: &random)
            let right = condition(keys: keys, depth: depth - 1, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return "\(left) and \(right)"
            case 1: return "\(left) or \(right)"
            case 2: return "not (\(left))"
            default: return "(\(left) or \(right)) and \(condition(keys: keys, depth: 0, using: &random))"
            }
        }
        var path = keys.randomElement(using: &random) ?? "id"
        if path == "loc", random.chance(2) { path = random.chance(2) ? "loc.lat" : "loc.city" }
        let literals = [
            "0", "-0", "1", "31.2", "1000", "1e2", "-17", "42", "2.50", "9007199254740993", "'a'", "'y'", "'dup'", "'上海'", "''",
            "'shanghai'", "'42'", "true", "false", "null",
        ]
        let literal = literals.randomElement(using: &random) ?? "0"
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return path
        case 1: return "\(path) in [\(literal), \(literals.randomElement(using: &random) ?? "1")]"
        case 2: return "\(path) \(["contains", "startswith", "endswith"].randomElement(using: &random) ?? "contains") \(literal)"
        default: return "\(path) \(["==", "!=", "<", "<=", ">", ">="].randomElement(using: &random) ?? "==") \(literal)"
        }
    }
}

extension RandomNumberGenerator {
    /// True about once in `odds` draws.
    package mutating func chance(_ odds: Int) -> Bool { Int.random(in: 0..<odds, using: &self) == 0 }
}
