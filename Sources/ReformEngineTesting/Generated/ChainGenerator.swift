import ReformEngine

/// Makes pipelines whose one run reads manager `a`'s ``RecordGenerator`` records through a
/// random chain: a mapping (paths, templates, constants, conversions, defaults, array operations)
/// or steps first, then zero to two steps reformers of every built-in step with random
/// parameters, written as NDJSON or as CSV rows. Chains are made to validate — the keys each step
/// names are ones the records carry at that point, as the loader checks — and to land on every
/// execution tier: compilable starts (`explode` + `pick`, mappings, filters, drops and renames of
/// whole records) and a last `sort`/`dedupe`/`limit` come up often.
public struct ChainGenerator: Sendable {
    /// One generated pipeline.
    public struct Case: Sendable, CustomStringConvertible {
        /// The pipeline's YAML.
        public var pipeline: String
        /// Where its run writes.
        public var outputs: TierCheck.Outputs
        /// The nesting limit to run it with.
        public var maximumDepth: Int

        /// The tiers that can tell this pipeline's runs apart: all of them, less the spilling ones
        /// when no step sorts or dedupes.
        public var tiers: [TierCheck.Tier] {
            let holds = pipeline.contains("sort:") || pipeline.contains("dedupe:")
            return TierCheck.Tier.all.filter { holds || $0.sortMemory == nil }
        }

        /// The check of this pipeline over `lines`.
        public func check(lines: [String]) -> TierCheck {
            TierCheck(pipeline: pipeline, lines: lines, outputs: outputs, maximumDepth: maximumDepth)
        }

        /// The pipeline's YAML.
        public var description: String { pipeline }
    }

    /// A generator of pipelines over records nesting about `depth` levels (see ``RecordGenerator``).
    public init(depth: Int = 6) {
        self.depth = depth
    }

    /// The records' nesting depth; cases run with a limit within one level of it.
    public var depth: Int

    /// One pipeline: its run has one output, or (about one in four) two or three fed from one
    /// fetch, the later ones often sharing the first one's first reformer.
    public func pipeline(using random: inout some RandomNumberGenerator) -> Case {
        var writer = ChainWriter()
        var rows = ""
        var shared: (name: String, known: [String]?, isMapping: Bool)? = nil
        var outputs: [(chain: [String], shape: String?, format: String)] = []
        for _ in 0..<(random.chance(4) ? Int.random(in: 2...3, using: &random) : 1) {
            var known: [String]? = nil
            var names: [String] = []
            if random.chance(8) {
                // A table: a mapping (shared or its own), then perhaps steps declaring their keys.
                if let shared, shared.isMapping, random.chance(2) {
                    names.append(shared.name)
                    known = shared.known
                } else {
                    names.append(writer.mapping(known: &known, using: &random))
                }
                if random.chance(2) {
                    let count = Int.random(in: 1...3, using: &random)
                    names.append(writer.steps(count: count, known: &known, compilable: true, forcingKeys: true, using: &random))
                }
                outputs.append((names, nil, "table"))
                continue
            }
            if let shared, random.chance(2) {
                names.append(shared.name)
                known = shared.known
            } else {
                let kind = Int.random(in: 0..<10, using: &random)
                switch kind {
                case 0..<4: names.append(writer.mapping(known: &known, using: &random))
                case 4..<7: names.append(writer.explodeAndPick(known: &known, using: &random))
                default: names.append(writer.steps(count: Int.random(in: 1...3, using: &random), known: &known, using: &random))
                }
                if shared == nil { shared = (names[0], known, kind < 4) }
            }
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                // Mostly steps the compiled chain covers, so that whole chains compile often.
                let compilable = !random.chance(3)
                let count = Int.random(in: 1...4, using: &random)
                names.append(writer.steps(count: count, known: &known, compilable: compilable, using: &random))
            }
            if random.chance(3) { names.append(writer.heldSteps(known: known, using: &random)) }
            switch Int.random(in: 0..<8, using: &random) {
            case 0, 1:
                let shape = "r\(outputs.count)"
                let columns = ChainWriter.some(known ?? ["id", "name", "price", "loc", "tags", "ok"], atLeast: 1, using: &random)
                    .map { $0.contains(".") ? "\"\($0)\"" : $0 }
                rows += "  \(shape): { columns: [\(columns.joined(separator: ", "))] }\n"
                outputs.append((names, shape, "csv"))
            case 2: outputs.append((names, nil, "json"))
            default: outputs.append((names, nil, "ndjson"))
            }
        }
        var yaml = "reform: 1\nmanagers: { a: {} }\nreformers:\n" + writer.reformers
        if !rows.isEmpty { yaml += "rows:\n" + rows }
        let paths = outputs.indices.map { "o\($0)." + (outputs[$0].format == "table" ? "db" : outputs[$0].format) }
        func fields(_ index: Int) -> String {
            let output = outputs[index]
            let chain = "reform: [\(output.chain.joined(separator: ", "))]"
            if output.format == "table" { return chain + ", sqlite: \(paths[index]), table: t\(index)" }
            return chain + (output.shape.map { ", rows: \($0)" } ?? "") + ", format: \(output.format), path: \(paths[index])"
        }
        let written: TierCheck.Outputs
        if outputs.count == 1, let output = outputs.first, output.format != "table" {
            let (chain, shape, format) = output
            yaml +=
                "runs:\n  default: { reform: [\(chain.joined(separator: ", "))], output: { "
                + (shape.map { "rows: \($0), " } ?? "") + "format: \(format) } }\n"
            written = .file("out." + format)
        } else {
            yaml += "runs:\n  default:\n    outputs:\n"
            for index in outputs.indices { yaml += "      - { \(fields(index)) }\n" }
            written = .declared(paths)
        }
        return Case(pipeline: yaml, outputs: written, maximumDepth: depth + Int.random(in: -1...1, using: &random))
    }
}

/// Writes the reformers of one generated pipeline, tracking the keys records carry after each
/// step (`nil` while they are the landed records, whose keys the loader does not know).
struct ChainWriter {
    var reformers = ""
    var count = 0

    static let paths = [
        "id", "name", "price", "when", "loc", "loc.city", "loc.lat", "ok", "tags", "floor", "deep", "nowhere", "loc.nowhere",
    ]
    static let newNames = ["label", "where", "tag", "title", "note", "place", "extra", "city", "lat"]
    static let conversions = ["int", "double", "bool", "string", "date"]
    static let values = ["0", "-1", "1.5", "none", "''", "true", "null", "上海", "2.50", "1e2"]

    mutating func name() -> String {
        count += 1
        return "r\(count)"
    }

    /// A mapping reformer over the landed records.
    mutating func mapping(known: inout [String]?, using random: inout some RandomNumberGenerator) -> String {
        let name = name()
        var keys: [String] = []
        var rules: [String] = []
        for key in ChainWriter.some(
            ["id", "name", "price", "when", "city", "lat", "ok", "tags", "floor", "label", "first", "kind"], atLeast: 1, using: &random)
        {
            keys.append(key)
            rules.append("\(key): \(rule(using: &random))")
        }
        reformers += "  \(name):\n    keys: { \(keys.map { "\($0): \($0)" }.joined(separator: ", ")) }\n"
        reformers += "    map:\n" + rules.map { "      \($0)\n" }.joined()
        known = keys
        return name
    }

    /// A mapping rule reading the landed record: mostly one most records satisfy, so that
    /// records go on down the chain, now and then one that rejects many.
    func rule(using random: inout some RandomNumberGenerator) -> String {
        let path = ChainWriter.paths.randomElement(using: &random) ?? "id"
        let common = ["id", "name", "price", "loc.city", "loc.lat", "ok", "floor"].randomElement(using: &random) ?? "id"
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1: return common
        case 2: return path + "?"
        case 3, 4: return "{ template: \(ChainWriter.quote(template(fields: ChainWriter.paths, using: &random))) }"
        case 5: return "{ value: \(ChainWriter.values.randomElement(using: &random) ?? "0")\(options(using: &random)) }"
        case 6, 7:
            let reduction = ["list", "count", "join", "first", "last"].randomElement(using: &random) ?? "list"
            let arrayPath = random.chance(3) ? "tags[].k" : "tags"
            return
                "{ path: \"\(arrayPath)\", array: \(reduction), optional: true\(options(using: &random, converting: 4, optional: false)) }"
        case 8: return "{ path: \(path)\(options(using: &random, converting: 2)) }"
        default: return "{ path: \(common), optional: true\(options(using: &random, converting: 3, optional: false)) }"
        }
    }

    /// A rule's `optional` (when `optional`), `default` and `convert`, each now and then (a
    /// conversion about once in `converting`).
    func options(using random: inout some RandomNumberGenerator, converting: Int = 3, optional: Bool = true) -> String {
        var text = ""
        if optional, random.chance(4) { text += ", optional: \(random.chance(2))" }
        if random.chance(3) { text += ", default: \(ChainWriter.values.randomElement(using: &random) ?? "0")" }
        if random.chance(converting) { text += ", convert: \(ChainWriter.conversions.randomElement(using: &random) ?? "int")" }
        return text
    }

    /// A template over `fields`: literal text and fields; a field that is not always there
    /// (`nowhere`, `deep`, `tags`) mostly optional.
    func template(fields: [String], using random: inout some RandomNumberGenerator) -> String {
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

    /// A steps reformer that starts with `explode: tags` (sometimes) and a `pick`, the start the
    /// compiled chain takes, then more steps.
    mutating func explodeAndPick(known: inout [String]?, using random: inout some RandomNumberGenerator) -> String {
        var steps: [String] = []
        var picked = ChainWriter.some(["id", "name", "price", "when", "loc", "ok", "tags", "floor"], atLeast: 1, using: &random)
        if random.chance(3) { picked.append("nowhere") }
        if random.chance(2) {
            steps.append("explode: tags")
            if !picked.contains("tags") { picked.append("tags") }
        }
        steps.append("pick: [\(picked.joined(separator: ", "))]")
        known = picked
        for _ in 0..<Int.random(in: 0...3, using: &random) { steps.append(step(known: &known, using: &random)) }
        return add(steps, known: known, using: &random)
    }

    /// A steps reformer of `count` random steps, only of those the compiled chain covers when
    /// `compilable`.
    mutating func steps(
        count: Int, known: inout [String]?, compilable: Bool = false, forcingKeys: Bool = false,
        using random: inout some RandomNumberGenerator
    ) -> String {
        let steps = (0..<count).map { _ in step(known: &known, compilable: compilable, using: &random) }
        return add(steps, known: known, forcingKeys: forcingKeys, using: &random)
    }

    /// A last steps reformer of `sort`, `dedupe` and `limit` (at least one): the held-lines tier's.
    mutating func heldSteps(known: [String]?, using random: inout some RandomNumberGenerator) -> String {
        let keys = known ?? ["id", "name", "price", "loc.city", "ok", "floor"]
        var steps: [String] = []
        while steps.isEmpty {
            if random.chance(2) {
                let key = keys.randomElement(using: &random) ?? "id"
                steps.append(random.chance(2) ? "sort: \(key)" : "sort: { by: \(key), order: \(random.chance(2) ? "desc" : "asc") }")
            }
            if random.chance(2) {
                steps.append(
                    random.chance(4)
                        ? "dedupe: true" : "dedupe: [\(ChainWriter.some(keys, atLeast: 1, using: &random).joined(separator: ", "))]")
            }
            if random.chance(2) { steps.append("limit: \(Int.random(in: 0...30, using: &random))") }
        }
        steps.shuffle(using: &random)
        return add(steps, known: known, declaring: false, using: &random)
    }

    /// Adds a steps reformer, declaring `keys:` (when they are known) now and then when
    /// `declaring`, always when `forcingKeys`.
    mutating func add(
        _ steps: [String], known: [String]?, declaring: Bool = true, forcingKeys: Bool = false,
        using random: inout some RandomNumberGenerator
    ) -> String {
        let name = name()
        reformers += "  \(name):\n"
        if declaring, let known, !known.isEmpty, forcingKeys || random.chance(3) {
            reformers += "    keys: { \(known.map { "\($0): \($0)" }.joined(separator: ", ")) }\n"
        }
        reformers += "    steps:\n" + steps.map { "      - \($0)\n" }.joined()
        return name
    }

    /// One random step over records carrying `known` keys, updating them: any step, or only
    /// `filter`, `pick`, `drop`, `rename`, `defaults`, `convert`, `set` and the component steps
    /// the compiled chain runs (``KeyEditStep``) when `compilable`. A component step
    /// (``BuiltInSteps/components``) writes its own argument (``RecordStep/sample(keys:using:)``),
    /// so a new one is generated without a line here.
    func step(known: inout [String]?, compilable: Bool = false, using random: inout some RandomNumberGenerator) -> String {
        let keys = known ?? ["id", "name", "price", "when", "loc", "ok", "tags", "floor"]
        let key = keys.randomElement(using: &random) ?? "id"
        let components = BuiltInSteps.components.filter { !compilable || $0 is any KeyEditStep.Type }
        let kinds = compilable ? 15 : 18
        // Each component one draw, as `explode` and `limit` have.
        let draw = Int.random(in: 0..<(kinds + components.count), using: &random)
        if draw >= kinds {
            let sample = components[draw - kinds].sample(keys: keys, using: &random)
            switch sample.keys {
            case .unchanged: break
            case .unknown: known = nil
            case .known(let after): known = after
            }
            return sample.text
        }
        switch draw {
        case 0..<4:
            return "filter: \(ChainWriter.quote(condition(keys: keys, depth: 2, using: &random)))"
        case 4, 5:
            let picked = ChainWriter.some(keys, atLeast: 1, using: &random)
            known = picked
            return "pick: [\(picked.joined(separator: ", "))]"
        case 6, 7:
            // Never every key the records are known to carry: a chain must leave something.
            var dropped = ChainWriter.some(keys, atLeast: 1, using: &random)
            if known != nil, dropped.count == keys.count { dropped.removeLast() }
            if dropped.isEmpty { return "convert: { \(key): string }" }
            if known == nil, random.chance(4) { dropped.append("nowhere") }
            known = known.map { $0.filter { !dropped.contains($0) } }
            return "drop: [\(dropped.joined(separator: ", "))]"
        case 8, 9:
            let to = ChainWriter.newNames.filter { !keys.contains($0) }.randomElement(using: &random) ?? "renamed"
            known = known.map { $0.map { $0 == key ? to : $0 } }
            return "rename: { \(key): \(to) }"
        case 10:
            let target = random.chance(2) ? key : ChainWriter.newNames.randomElement(using: &random) ?? "extra"
            if let current = known, !current.contains(target) { known = current + [target] }
            return "defaults: { \(target): \(ChainWriter.values.randomElement(using: &random) ?? "0") }"
        case 11, 12:
            return "convert: { \(key): \(ChainWriter.conversions.randomElement(using: &random) ?? "int") }"
        case 13, 14:
            let fields = known ?? ["id", "name", "price", "ok", "floor"]
            let target = random.chance(2) ? key : ChainWriter.newNames.randomElement(using: &random) ?? "note"
            if let current = known, !current.contains(target) { known = current + [target] }
            return "set: { \(target): \(ChainWriter.quote(template(fields: fields, using: &random))) }"
        case 15:
            if known == nil || known?.contains("tags") == true { return "explode: tags" }
            return "filter: \(ChainWriter.quote(condition(keys: keys, depth: 1, using: &random)))"
        case 16:
            return random.chance(2) ? "sort: \(key)" : "dedupe: [\(key)]"
        default:
            return "limit: \(Int.random(in: 0...25, using: &random))"
        }
    }

    /// A filter condition over `keys`, nesting `and`/`or`/`not` up to `depth` levels.
    func condition(keys: [String], depth: Int, using random: inout some RandomNumberGenerator) -> String {
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

    /// A random non-empty selection of `choices` in their order, at least `atLeast` of them.
    static func some(_ choices: [String], atLeast: Int, using random: inout some RandomNumberGenerator) -> [String] {
        var picked = choices.filter { _ in random.chance(2) }
        while picked.count < min(atLeast, choices.count) {
            if let extra = choices.randomElement(using: &random), !picked.contains(extra) { picked.append(extra) }
        }
        return picked
    }

    /// `text` as a YAML double-quoted scalar.
    static func quote(_ text: String) -> String {
        "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
}
