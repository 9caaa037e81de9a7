import ReformSDK
import ReformYAML

extension CompiledChain {
    /// The compiled chain for `manager`'s records when a run has exactly these outputs and the only
    /// one is NDJSON without rows, and its chain is one the compiled path covers (see the type's
    /// documentation); `nil` leaves the manager to the general path.
    static func make(for manager: ManagerRef, outputs: [OutputPlan], format: OutputFormat, limits: JSONLimits) -> CompiledChain? {
        guard outputs.count == 1, let output = outputs.first, output.rows == nil, format == .ndjson else { return nil }
        return make(chain: output.chain[...], manager: manager, limits: limits)
    }

    /// The compiled `chain` for `manager`'s records, writing NDJSON lines, when the compiled path
    /// covers all of it.
    static func make(chain: ArraySlice<ReformerPlan>, manager: ManagerRef, limits: JSONLimits) -> CompiledChain? {
        if let passed = Compiler.compilePassedLines(chain) { return passed.chain(limits: limits) }
        return Compiler.compile(chain, manager: manager, exploding: true)?.chain(limits: limits)
    }

    /// Why the compiled path does not cover all of `chain` for `manager`'s records, in words for
    /// `reform run --explain`; `nil` when it does.
    static func uncovered(_ chain: ArraySlice<ReformerPlan>, manager: ManagerRef, exploding: Bool = true) -> String? {
        if Compiler.compilePassedLines(chain) != nil { return nil }
        var stop: String?
        guard let compiler = Compiler.compile(chain, manager: manager, exploding: exploding, stop: &stop) else {
            return stop ?? "the chain is empty"
        }
        if !exploding, compiler.hasIntegralDoubleConstant {
            return "a constant double the writer prints as a whole number would read back as an int"
        }
        return nil
    }

    /// For a run whose one output's chain the compiled path covers only in part (a `sort` or
    /// `dedupe` follows), or whose records become rows or another format: the longest run of
    /// whole reformers at the chain's start that it covers, without `explode` (so each line gives
    /// at most one record), and how many reformers that is.
    static func makePrefix(for manager: ManagerRef, outputs: [OutputPlan], limits: JSONLimits) -> (chain: CompiledChain, stages: Int)? {
        guard outputs.count == 1, let output = outputs.first else { return nil }
        var stages = output.chain.count
        while stages > 0 {
            // A constant double the writer prints as an integer would read back as an int.
            if let compiler = Compiler.compile(output.chain.prefix(stages), manager: manager, exploding: false),
                !compiler.hasIntegralDoubleConstant
            {
                return (compiler.chain(limits: limits), stages)
            }
            stages -= 1
        }
        return nil
    }
}

/// Builds a ``CompiledChain``: the located paths, the slots, the remaining steps, and the *view* —
/// the keys a record carries at this point of the chain, each naming its slot.
private struct Compiler {
    var paths: [[String]] = []
    var slots: [CompiledChain.Slot] = []
    var steps: [CompiledChain.Step] = []
    var explode: (slot: Int?, path: Int)?
    var view: [(name: String, slot: Int)] = []
    /// Whether a constant slot (a mapping's `value:`, a `defaults` step's) holds a double the
    /// writer prints as an integer.
    var hasIntegralDoubleConstant = false
    /// How many steps of the first (steps) reformer the source took (`explode`, `pick`).
    var sourceSteps = 0
    /// The position in the chain of the reformer being compiled, and how many were.
    var reformer = 0
    var reformers = 1

    /// The compiler of `chain` for `manager`'s records, when the compiled path covers all of it.
    static func compile(_ chain: ArraySlice<ReformerPlan>, manager: ManagerRef, exploding: Bool) -> Compiler? {
        var stop: String?
        return compile(chain, manager: manager, exploding: exploding, stop: &stop)
    }

    /// As ``compile(_:manager:exploding:)``; when it gives `nil`, `stop` says where the compiled
    /// path stopped, as `reform run --explain` words it.
    static func compile(_ chain: ArraySlice<ReformerPlan>, manager: ManagerRef, exploding: Bool, stop: inout String?) -> Compiler? {
        guard let first = chain.first else { return nil }
        var compiler = Compiler()
        guard compiler.source(first, manager: manager) else {
            stop = Compiler.uncoveredStart(of: first)
            return nil
        }
        guard exploding || compiler.explode == nil else {
            stop = "its `explode` makes several records of a line, which a later step needs as records"
            return nil
        }
        for (position, plan) in chain.enumerated() {
            compiler.reformer = position
            compiler.reformers = position + 1
            if case .steps(let steps) = plan.kind {
                let rest = position == 0 ? Array(steps.dropFirst(compiler.sourceSteps)) : steps
                for step in rest {
                    guard compiler.step(step) else {
                        stop = "step '\(step.name)' of reformer '\(plan.name)' (line \(step.location.line)) has no compiled form here"
                        return nil
                    }
                }
                if let keys = plan.keys {
                    guard compiler.conform(to: keys.constants) else {
                        stop = "reformer '\(plan.name)' declares keys its steps do not all make from the line"
                        return nil
                    }
                }
            } else if position > 0 {
                let kind = if case .plugin = plan.kind { "plugin" } else { "mapping" }
                stop = "reformer '\(plan.name)' is a \(kind), which the compiled path runs only as a chain's first reformer"
                return nil
            }
        }
        if compiler.view.isEmpty { stop = "the chain keeps no keys" }
        return compiler.view.isEmpty ? nil : compiler
    }

    /// Why the compiled path cannot start with `plan`.
    private static func uncoveredStart(of plan: ReformerPlan) -> String {
        switch plan.kind {
        case .mapping:
            "a rule of mapping '\(plan.name)' has no compiled form (a path through an array, a template's format, or no rules)"
        case .steps:
            "reformer '\(plan.name)' does not start with `pick` (after an optional `explode` of a top-level key)"
        case .plugin:
            "reformer '\(plan.name)' is a plugin, which reads records"
        }
    }

    /// Whether the chain only filters whole records, drops and renames members (``CompiledChain/passesLines``).
    var passesLines = false
    /// The members a passed line loses (``CompiledChain/droppedMembers``).
    var droppedMembers: [(path: Int, keyLength: Int)] = []
    /// The members a passed line renames (``CompiledChain/renamedMembers``).
    var renamedMembers: [(path: Int, keyLength: Int, to: [UInt8])] = []
    /// Paths of keys that, present in a line, send it to the general path
    /// (``CompiledChain/absentPaths``).
    var absentPaths: [Int] = []

    /// The compiler of a chain whose every reformer is `steps` of only `filter`, `drop` and
    /// `rename`, without declared keys: each line that passes is the record it came as, less the
    /// members dropped, some under new names. Each filter's paths are slots of their own
    /// (optional: a missing one reads as null, as a condition reads it; one under a key dropped
    /// before it is missing), read under the names the line had. A rename's new name must be one
    /// no step before it named (else `nil`), and a line that has a member of that name already
    /// goes to the general path (the rename would replace it). `nil` for any other chain, or a
    /// filter path that is not all keys.
    static func compilePassedLines(_ chain: ArraySlice<ReformerPlan>) -> Compiler? {
        var compiler = Compiler()
        compiler.passesLines = true
        var slotOfPath: [ValuePath: Int] = [:]
        var dropped: [String] = []
        // Each renamed member's name now and the name it came with, and every name steps read.
        var renamed: [String: String] = [:]
        var named: Set<String> = []
        // The names renamed away: a step after reads them as missing.
        var renamedAway: Set<String> = []
        func original(_ key: String) -> String { renamed[key] ?? key }
        for (position, plan) in chain.enumerated() {
            guard case .steps(let steps) = plan.kind, plan.keys == nil, !steps.isEmpty else { return nil }
            compiler.reformer = position
            compiler.reformers = position + 1
            for step in steps {
                switch step.compiledForm {
                case .keepRecords(let condition):
                    var lookups: [CompiledChain.Lookup] = []
                    for path in condition.paths {
                        guard let key = path.firstKey else { return nil }
                        named.insert(key)
                        if dropped.contains(key) || renamedAway.contains(key) {
                            lookups.append(CompiledChain.Lookup(path: path, slot: nil, rest: ValuePath([])))
                            continue
                        }
                        // The path as the line has it: under the name its first key came with.
                        let linePath = ValuePath([.key(original(key))] + path.components.dropFirst())
                        if slotOfPath[linePath] == nil {
                            guard let located = compiler.locate(linePath) else { return nil }
                            var slot = CompiledChain.Slot(source: .field(located))
                            slot.optional = true
                            slotOfPath[linePath] = compiler.addSlot(slot)
                        }
                        lookups.append(CompiledChain.Lookup(path: path, slot: slotOfPath[linePath], rest: ValuePath([])))
                    }
                    compiler.steps.append(.filter(SlotCondition(condition, lookups: lookups), reformer: position))
                case .removeMembers(let keys):
                    for key in keys where !dropped.contains(key) && !renamedAway.contains(key) {
                        named.insert(key)
                        let lineKey = original(key)
                        guard let located = compiler.locate(ValuePath([.key(lineKey)])) else { return nil }
                        dropped.append(key)
                        renamed[key] = nil
                        // A member renamed and then dropped is only dropped.
                        compiler.renamedMembers.removeAll { $0.path == located }
                        compiler.droppedMembers.append((located, lineKey.utf8.count))
                    }
                case .renameMembers(let pairs):
                    for (from, to) in pairs where from != to {
                        guard !named.contains(to), !dropped.contains(from), !renamedAway.contains(from), renamed[from] == nil
                        else { return nil }
                        renamedAway.insert(from)
                        named.insert(from)
                        named.insert(to)
                        guard let source = compiler.locate(ValuePath([.key(from)])),
                            let target = compiler.locate(ValuePath([.key(to)]))
                        else { return nil }
                        renamed[to] = from
                        compiler.absentPaths.append(target)
                        compiler.renamedMembers.append((source, from.utf8.count, Array(to.utf8)))
                    }
                default:
                    return nil
                }
            }
        }
        return chain.isEmpty ? nil : compiler
    }

    func chain(limits: JSONLimits) -> CompiledChain {
        CompiledChain(
            paths: paths, slots: slots, steps: steps, explode: explode, output: view, reformers: reformers, passesLines: passesLines,
            droppedMembers: droppedMembers, renamedMembers: renamedMembers, absentPaths: absentPaths, limits: limits)
    }

    /// The located path index of a key path, adding it when new.
    mutating func locate(_ path: ValuePath) -> Int? {
        var keys: [String] = []
        for component in path.components {
            guard case .key(let key) = component else { return nil }
            keys.append(key)
        }
        guard !keys.isEmpty else { return nil }
        if let index = paths.firstIndex(of: keys) { return index }
        paths.append(keys)
        return paths.count - 1
    }

    mutating func addSlot(_ slot: CompiledChain.Slot) -> Int {
        slots.append(slot)
        return slots.count - 1
    }

    /// The first reformer: a mapping, or steps that start with an optional `explode` and a `pick`.
    mutating func source(_ plan: ReformerPlan, manager: ManagerRef) -> Bool {
        switch plan.kind {
        case .mapping(let mapping):
            guard let rules = mapping.perManager[manager.index] ?? mapping.shared, !rules.isEmpty else { return false }
            for rule in rules {
                guard let slot = slot(for: rule) else { return false }
                view.append((rule.constant, addSlot(slot)))
            }
            return true
        case .steps(let stepPlans):
            var explodePath: ValuePath?
            var index = 0
            if index < stepPlans.count, case .explode(let path) = stepPlans[index].compiledForm {
                explodePath = path
                index += 1
            }
            guard index < stepPlans.count, case .keepMembers(let keys) = stepPlans[index].compiledForm else { return false }
            index += 1
            for key in keys {
                guard !view.contains(where: { $0.name == key }), let path = locate(ValuePath([.key(key)])) else { return false }
                view.append((key, addSlot(CompiledChain.Slot(source: .field(path)))))
            }
            if let explodePath {
                guard explodePath.components.count == 1, let key = explodePath.firstKey, let path = locate(explodePath) else {
                    return false
                }
                explode = (view.first { $0.name == key }?.slot, path)
            }
            sourceSteps = index
            return true
        case .plugin:
            return false
        }
    }

    /// The slot of one mapping rule, when the compiled path covers it.
    mutating func slot(for rule: FieldRule) -> CompiledChain.Slot? {
        if let operation = rule.array {
            guard case .path(let path) = rule.source, let located = locate(path) else { return nil }
            return CompiledChain.Slot(
                source: .array(located, operation), optional: rule.optional, fallback: rule.defaultValue, conversion: rule.conversion)
        }
        switch rule.source {
        case .path(let path):
            guard let located = locate(path) else { return nil }
            return CompiledChain.Slot(
                source: .field(located), optional: rule.optional, fallback: rule.defaultValue, conversion: rule.conversion)
        case .template(let template):
            guard rule.conversion == nil, let pieces = pieces(of: template) else { return nil }
            return CompiledChain.Slot(source: .template(pieces))
        case .constant(var value):
            if value.isNull, let fallback = rule.defaultValue { value = fallback }
            if let conversion = rule.conversion {
                do { value = try conversion.apply(value, key: rule.constant) } catch { return nil }
            }
            noteConstant(value)
            var text: [UInt8] = []
            JSON.write(value, into: &text)
            return CompiledChain.Slot(source: .constant(text))
        }
    }

    /// Notes a constant that is a double the writer prints as an integer.
    mutating func noteConstant(_ value: Value) {
        if case .double(let d) = value, d.rounded(.towardZero) == d { hasIntegralDoubleConstant = true }
    }

    /// A template's literal text, escaped as it goes inside a JSON string.
    static func literal(_ text: String) -> CompiledChain.TemplatePiece {
        var quoted: [UInt8] = []
        JSON.write(.string(text), into: &quoted)
        return .literal(Array(quoted[1..<(quoted.count - 1)]))
    }

    /// A template's pieces: a mapping's fields are paths located in the line; a `set` step's
    /// (`fromSlots`) are keys the records carry here (no deeper path), one they never carry being
    /// nothing when optional. `nil` when the compiled path does not cover the template (a `set`
    /// field the records never carry fails every record: the general path says so).
    mutating func pieces(of template: Template, fromSlots: Bool = false) -> [CompiledChain.TemplatePiece]? {
        var pieces: [CompiledChain.TemplatePiece] = []
        for part in template.parts {
            switch part {
            case .literal(let text):
                pieces.append(Compiler.literal(text))
            case .field(let path, let optional) where !fromSlots:
                guard let located = locate(path) else { return nil }
                pieces.append(.field(located, optional: optional))
            case .field(let path, let optional):
                guard path.components.count == 1, let key = path.firstKey else { return nil }
                if let member = view.first(where: { $0.name == key }) {
                    pieces.append(.slot(member.slot, optional: optional))
                } else if !optional {
                    return nil
                }
            }
        }
        return pieces
    }

    /// One step after the source; `false` when the compiled path does not cover it.
    mutating func step(_ step: StepPlan) -> Bool {
        switch step.compiledForm {
        case .keepRecords(let condition):
            let lookups = condition.paths.map { path in
                let slot = path.firstKey.flatMap { key in view.first { $0.name == key }?.slot }
                return CompiledChain.Lookup(path: path, slot: slot, rest: ValuePath(Array(path.components.dropFirst())))
            }
            steps.append(.filter(SlotCondition(condition, lookups: lookups), reformer: reformer))
        case .keepMembers(let keys):
            var picked: [(name: String, slot: Int)] = []
            for key in keys {
                // A key the records never carry here rejects every record: the general path says so.
                guard let member = view.first(where: { $0.name == key }), !picked.contains(where: { $0.name == key }) else {
                    return false
                }
                picked.append(member)
            }
            view = picked
        case .removeMembers(let keys):
            view.removeAll { keys.contains($0.name) }
        case .renameMembers(let pairs):
            let renamed = view.map { member in (name: pairs.first { $0.from == member.name }?.to ?? member.name, slot: member.slot) }
            guard Set(renamed.map(\.name)).count == renamed.count else { return false }
            view = renamed
        case .fillNulls(let pairs):
            for (key, value) in pairs {
                noteConstant(value)
                var text: [UInt8] = []
                JSON.write(value, into: &text)
                if let member = view.first(where: { $0.name == key }) {
                    steps.append(.defaults(slot: member.slot, text: text))
                } else {
                    view.append((key, addSlot(CompiledChain.Slot(source: .constant(text)))))
                }
            }
        case .assignTemplates(let pairs):
            // Every template reads the record as it was before the step; new keys go last.
            var assignments: [(slot: Int, pieces: [CompiledChain.TemplatePiece])] = []
            var added: [(name: String, slot: Int)] = []
            for (key, template) in pairs {
                guard let pieces = pieces(of: template, fromSlots: true) else { return false }
                let target: Int
                if let member = view.first(where: { $0.name == key }) ?? added.first(where: { $0.name == key }) {
                    target = member.slot
                } else {
                    target = addSlot(CompiledChain.Slot(source: .constant(Array("null".utf8))))
                    added.append((key, target))
                }
                assignments.append((target, pieces))
            }
            view += added
            steps.append(.set(assignments))
        case .convertValues(let pairs):
            for (key, conversion) in pairs {
                // A key the records do not carry here is left alone, as the general path does.
                if let member = view.first(where: { $0.name == key }) { steps.append(.convert(slot: member.slot, conversion: conversion)) }
            }
        case .editValues(let editing):
            for (index, key) in editing.editedKeys.enumerated() {
                // A key the records do not carry here is left alone, as the general path does.
                if let member = view.first(where: { $0.name == key }) {
                    steps.append(.edit(slot: member.slot, step: editing, index: index))
                }
            }
        case .explode, nil:
            // `explode` only as the chain's start, where ``source(_:manager:)`` takes it.
            return false
        }
        return true
    }

    /// A steps reformer's declared keys: the records must carry exactly them, written in declared
    /// order (as `ChainRunner.conform` reorders them).
    mutating func conform(to keys: [String]) -> Bool {
        guard keys.count == view.count, Set(keys) == Set(view.map(\.name)) else { return false }
        view = keys.compactMap { key in view.first { $0.name == key } }
        return view.count == keys.count
    }
}
