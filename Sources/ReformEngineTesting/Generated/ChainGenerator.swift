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
                let columns = SampleText.some(known ?? ["id", "name", "price", "loc", "tags", "ok"], atLeast: 1, using: &random)
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

    mutating func name() -> String {
        count += 1
        return "r\(count)"
    }

    /// A mapping reformer over the landed records.
    mutating func mapping(known: inout [String]?, using random: inout some RandomNumberGenerator) -> String {
        let name = name()
        var keys: [String] = []
        var rules: [String] = []
        for key in SampleText.some(
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
        case 3, 4: return "{ template: \(SampleText.quote(SampleText.template(fields: ChainWriter.paths, using: &random))) }"
        case 5: return "{ value: \(SampleText.values.randomElement(using: &random) ?? "0")\(options(using: &random)) }"
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
        if random.chance(3) { text += ", default: \(SampleText.values.randomElement(using: &random) ?? "0")" }
        if random.chance(converting) { text += ", convert: \(SampleText.conversions.randomElement(using: &random) ?? "int")" }
        return text
    }

    /// A steps reformer that starts with `explode: tags` (sometimes) and a `pick`, the start the
    /// compiled chain takes, then more steps.
    mutating func explodeAndPick(known: inout [String]?, using random: inout some RandomNumberGenerator) -> String {
        var steps: [String] = []
        var picked = SampleText.some(["id", "name", "price", "when", "loc", "ok", "tags", "floor"], atLeast: 1, using: &random)
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

    /// A last steps reformer of holding steps (``BuiltInSteps/holding``: `sort`, `dedupe`,
    /// `limit`), each at most once and at least one of them: the held-lines tier's. Each writes its
    /// own argument (``BuiltInStep/sample(_:using:)``), so a new holding step is generated here
    /// without a line changed.
    mutating func heldSteps(known: [String]?, using random: inout some RandomNumberGenerator) -> String {
        let context = SampleContext(keys: known ?? ["id", "name", "price", "loc.city", "ok", "floor"], known: known != nil)
        var steps: [String] = []
        while steps.isEmpty {
            for step in BuiltInSteps.holding where random.chance(2) {
                if let sample = step.sample(context, using: &random) { steps.append(sample.text) }
            }
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
    /// those the compiled chain runs after a chain's start (``RecordStep/compiles``) when
    /// `compilable`. Every step writes its own argument (``BuiltInStep/sample(_:using:)``), drawn
    /// as often as its ``BuiltInStep/sampleWeight`` says, so a new one is generated without a line
    /// here; the holding steps (`sort`, `dedupe`, `limit`) are drawn only when not `compilable`.
    func step(known: inout [String]?, compilable: Bool = false, using random: inout some RandomNumberGenerator) -> String {
        let context = SampleContext(keys: known ?? SampleText.landedKeys, known: known != nil)
        let components = BuiltInSteps.all.filter { step in
            compilable ? (step as? any RecordStep.Type)?.compiles == true : true
        }
        let total = components.reduce(0) { $0 + $1.sampleWeight }
        while true {
            var draw = Int.random(in: 0..<total, using: &random)
            var drawn: (any BuiltInStep.Type)?
            for component in components where drawn == nil {
                if draw < component.sampleWeight { drawn = component } else { draw -= component.sampleWeight }
            }
            guard let sample = drawn?.sample(context, using: &random) else { continue }
            switch sample.keys {
            case .unchanged: break
            case .unknown: known = nil
            case .known(let after): known = after
            case .adding(let names): known = known.map { current in current + names.filter { !current.contains($0) } }
            case .removing(let names): known = known.map { $0.filter { !names.contains($0) } }
            case .renaming(let from, let to): known = known.map { $0.map { $0 == from ? to : $0 } }
            }
            return sample.text
        }
    }
}
