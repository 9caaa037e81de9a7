import ReformEngine

/// Makes NDJSON lines of listing-like records built to trip a fast path: numbers in every JSON
/// form (`-0`, `1E+2`, `2.50`, integers past 2^53 and 2^64, `1e-320`), strings with escapes the
/// writer writes otherwise (`\/`, `\u00e9`, surrogate pairs), CJK, control characters, keys
/// missing, null or of an unexpected kind, whitespace between tokens, duplicate keys, nesting near
/// the depth limit, long strings, and now and then a line that is not a JSON object at all.
///
/// The records carry the keys ``keys`` names (`loc` is an object of `city` and `lat`, `tags` an
/// array of strings or of objects with `k`); ``ChainGenerator`` writes chains over them.
public struct RecordGenerator: Sendable {
    /// The top-level keys records carry (each may be missing).
    public static let keys = ["id", "name", "price", "when", "loc", "ok", "tags", "floor", "deep"]
    /// The depth the records' nesting goes up to (`deep`); a check runs with a limit near it.
    public var depth: Int

    /// A generator whose deepest records nest about `depth` levels.
    public init(depth: Int = 6) {
        self.depth = depth
    }

    /// `count` lines.
    public func lines(count: Int, using random: inout some RandomNumberGenerator) -> [String] {
        (0..<count).map { _ in line(using: &random) }
    }

    /// One line: mostly a record, sometimes (about 1 in 40) a line that is not one.
    public func line(using random: inout some RandomNumberGenerator) -> String {
        if Int.random(in: 0..<40, using: &random) == 0 {
            return ["", "  ", "[1,2]", #"{"id":1,"#, #"{"id":1,}"#, "nul", #"{"id" 1}"#, #""text""#, "{}"].randomElement(using: &random)
                ?? ""
        }
        var members: [(String, GeneratedJSON)] = []
        for key in Self.keys where Int.random(in: 0..<10, using: &random) > 0 {
            let value: GeneratedJSON
            if random.chance(8) {
                value = GeneratedJSON.any(depth: 2, using: &random)
            } else {
                value = typical(key, using: &random)
            }
            members.append((key, value))
        }
        if random.chance(8) { members.shuffle(using: &random) }
        if random.chance(40), let first = members.first {
            members.append((first.0, GeneratedJSON.any(depth: 1, using: &random)))
        }
        let spaced = random.chance(6)
        return GeneratedJSON.object(members).text(spaced: spaced, using: &random)
    }

    /// A value of the kind a key usually holds.
    func typical(_ key: String, using random: inout some RandomNumberGenerator) -> GeneratedJSON {
        switch key {
        case "id": return .number(String(Int.random(in: -3...40, using: &random)))
        case "name", "floor": return .string(GeneratedJSON.text(using: &random))
        case "price":
            return random.chance(2) ? GeneratedJSON.number(using: &random) : .string(GeneratedJSON.numberText(using: &random))
        case "when":
            let dates = [
                "2024-05-28T05:21:00+08:00", "2024-01-01", "2024-13-01", "2024-02-29T23:59:59Z", "2024-05-01T10:00:00.123Z",
                "2024-05-01 10:00", "1716848460", "2024-05-01T23:30:00-02:30", "yesterday", "",
            ]
            return random.chance(4)
                ? .number(["1716848460", "1716848460123", "0", "-1", "1e300"].randomElement(using: &random) ?? "0")
                : .string(dates.randomElement(using: &random) ?? "")
        case "loc":
            var members: [(String, GeneratedJSON)] = []
            if !random.chance(8) { members.append(("city", .string(GeneratedJSON.text(using: &random)))) }
            if !random.chance(8) { members.append(("lat", GeneratedJSON.number(using: &random))) }
            if random.chance(5) { members.shuffle(using: &random) }
            return .object(members)
        case "ok":
            return [.bool(true), .bool(false), .string("yes"), .string("off"), .number("1"), .number("0"), .null, .string("TRUE")]
                .randomElement(using: &random) ?? .null
        case "tags":
            let count = Int.random(in: 0...4, using: &random)
            if random.chance(3) {
                return .array(
                    (0..<count).map { _ in
                        .object(
                            random.chance(6)
                                ? []
                                : [
                                    (
                                        "k",
                                        random.chance(2)
                                            ? GeneratedJSON.number(using: &random) : .string(GeneratedJSON.text(using: &random))
                                    )
                                ])
                    })
            }
            return .array((0..<count).map { _ in .string(GeneratedJSON.text(using: &random)) })
        default:
            return GeneratedJSON.nested(Int.random(in: max(1, depth - 3)...depth + 1, using: &random), using: &random)
        }
    }
}
