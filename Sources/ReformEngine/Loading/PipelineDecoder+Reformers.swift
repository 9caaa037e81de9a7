import ReformSDK
import ReformYAML

extension PipelineDecoder {
    static let reformerKeys = PipelineSchema.reformer.keyNames
    static let ruleKeys = PipelineSchema.ruleObject.keyNames

    func decodeReformers(_ node: YAMLNode, managers: [ManagerPlan]) -> [String: ReformerPlan] {
        var plans: [String: ReformerPlan] = [:]
        for entry in namedEntries(node, "reformers") {
            let what = "reformer '\(entry.key)'"
            guard let m = context.mapping(entry.value, what, allowed: PipelineDecoder.reformerKeys) else { continue }
            let keys = m["keys"].flatMap { decodeKeys($0, what) }
            let kinds = ["from", "map", "steps", "plugin"].filter { m[$0] != nil }
            let isMapping = kinds.contains("from") || kinds.contains("map")
            if kinds.isEmpty {
                context.error("\(what) needs 'from' or 'map' (field mappings), 'steps', or 'plugin'", at: entry.keyLocation)
                continue
            }
            if kinds.contains("steps") && isMapping || kinds.contains("plugin") && kinds.count > 1 {
                context.error(
                    "\(what) mixes \(kinds.map { "'\($0)'" }.joined(separator: " and ")); "
                        + "declare one kind per reformer and chain them in a run's 'reform' list",
                    at: entry.keyLocation)
                continue
            }
            let kind: ReformerPlan.Kind
            if isMapping {
                guard let keys else {
                    context.error("\(what) maps fields, so it needs 'keys' (the constants it emits)", at: entry.keyLocation)
                    continue
                }
                guard let mapping = decodeMapping(m, what, keys: keys, managers: managers) else { continue }
                kind = .mapping(mapping)
            } else if let steps = m["steps"] {
                guard let decoded = decodeSteps(steps, what) else { continue }
                kind = .steps(decoded)
            } else {
                guard let (plugin, emitted) = decodePlugin(m, what, declaredKeys: keys, managers: managers) else { continue }
                plans[entry.key] = ReformerPlan(name: entry.key, keys: keys ?? emitted, kind: .plugin(plugin), location: entry.keyLocation)
                continue
            }
            if m["options"] != nil && !kinds.contains("plugin"), let at = m.entry("options") {
                context.error("'options' only applies to plugin reformers", at: at.keyLocation)
            }
            plans[entry.key] = ReformerPlan(name: entry.key, keys: keys, kind: kind, location: entry.keyLocation)
        }
        return plans
    }

    private func decodeKeys(_ node: YAMLNode, _ owner: String) -> KeySet? {
        var keys: [KeySet.Key] = []
        var seen: Set<String> = []
        func add(_ name: String, _ constant: String, at location: SourceLocation) {
            guard isIdentifier(constant) else {
                context.error(
                    "key constant '\(constant)' of \(owner) must be an identifier (letters, digits, '_'), as consumers use it in code",
                    at: location)
                return
            }
            guard seen.insert(name).inserted, seen.insert(constant).inserted || constant == name else {
                context.error("key '\(name)' (\(constant)) of \(owner) is declared twice", at: location)
                return
            }
            keys.append(KeySet.Key(name: name, constant: constant))
        }
        switch node.content {
        case .mapping:
            guard let m = context.mapping(node, "'keys' of \(owner)", allowed: nil) else { return nil }
            for entry in m.entries {
                if let constant = context.string(entry.value, "key '\(entry.key)' of \(owner)") {
                    add(entry.key, constant, at: entry.value.location)
                }
            }
        case .sequence(let items):
            for item in items {
                if let name = context.string(item, "'keys' of \(owner)") { add(name, name, at: item.location) }
            }
        case .scalar:
            context.error("'keys' of \(owner) must map short names to constants, as in '{ id: kListKeyID }'", at: node.location)
            return nil
        }
        return keys.isEmpty ? nil : KeySet(keys)
    }

    private func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return s.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    private func decodeMapping(_ m: Mapping, _ owner: String, keys: KeySet, managers: [ManagerPlan]) -> MappingPlan? {
        var perManager: [Int: [FieldRule]] = [:]
        var ok = true
        if let from = m["from"], let fm = context.mapping(from, "'from' of \(owner)", allowed: nil) {
            for entry in fm.entries {
                guard let manager = managers.first(where: { $0.ref.name == entry.key }) else {
                    unknownReference("manager", entry.key, known: managers.map(\.ref.name), at: entry.keyLocation)
                    ok = false
                    continue
                }
                if let rules = decodeRules(entry.value, "'from.\(entry.key)' of \(owner)", keys: keys) {
                    perManager[manager.ref.index] = rules
                } else {
                    ok = false
                }
            }
        }
        var shared: [FieldRule]?
        if let map = m["map"] {
            shared = decodeRules(map, "'map' of \(owner)", keys: keys)
            if shared == nil { ok = false }
        }
        return ok ? MappingPlan(perManager: perManager, shared: shared) : nil
    }

    /// One rule per declared key, in key order; reports undeclared and missing keys.
    private func decodeRules(_ node: YAMLNode, _ what: String, keys: KeySet) -> [FieldRule]? {
        guard let m = context.mapping(node, what, allowed: nil) else { return nil }
        var rules: [String: FieldRule] = [:]
        var ok = true
        for entry in m.entries {
            guard let key = keys.key(named: entry.key) else {
                context.error(
                    "'\(entry.key)' in \(what) is not a declared key\(Suggestions.hint(for: entry.key, in: keys.keys.map(\.name)))"
                        + " (declared: \(keys.keys.map(\.name).joined(separator: ", ")))",
                    at: entry.keyLocation)
                ok = false
                continue
            }
            guard let rule = decodeRule(entry.value, "'\(entry.key)' in \(what)", constant: key.constant) else {
                ok = false
                continue
            }
            rules[key.constant] = rule
        }
        let missing = keys.keys.filter { rules[$0.constant] == nil }
        if !missing.isEmpty {
            context.error(
                "\(what) has no rule for \(missing.map { "'\($0.name)'" }.joined(separator: ", ")); "
                    + "every declared key needs one (write 'field?' for an optional field)",
                at: node.location)
            ok = false
        }
        return ok ? keys.keys.compactMap { rules[$0.constant] } : nil
    }

    private func decodeRule(_ node: YAMLNode, _ what: String, constant: String) -> FieldRule? {
        if case .scalar = node.content {
            guard var text = context.string(node, what) else { return nil }
            var optional = false
            if text.hasSuffix("?") {
                optional = true
                text.removeLast()
            }
            guard let (path, array) = parseRulePath(text, node, what, reduction: nil, separator: nil) else { return nil }
            return FieldRule(
                constant: constant, source: .path(path), optional: optional, defaultValue: nil, conversion: nil, array: array)
        }
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.ruleKeys) else { return nil }
        let sources = ["path", "template", "value"].filter { m[$0] != nil }
        guard sources.count == 1 else {
            context.error("\(what) needs exactly one of 'path', 'template' or 'value'", at: node.location)
            return nil
        }
        let source: FieldRule.Source
        var array: ArrayOperation?
        let reduction = m["array"].flatMap { context.choice($0, "array operation", as: ArrayOperation.Reduction.self) }
        let separator = m["separator"].flatMap { context.string($0, "'separator' of \(what)") }
        if let p = m["path"] {
            guard let text = context.string(p, what),
                let (path, operation) = parseRulePath(text, p, what, reduction: reduction, separator: separator)
            else { return nil }
            source = .path(path)
            array = operation
        } else if let t = m["template"] {
            guard let template = context.recordTemplate(t, what) else { return nil }
            source = .template(template)
        } else {
            guard let v = m["value"], let value = context.value(v, what) else { return nil }
            source = .constant(value)
        }
        return FieldRule(
            constant: constant, source: source,
            optional: m["optional"].flatMap { context.bool($0, "'optional' of \(what)") } ?? (m["default"] != nil),
            defaultValue: m["default"].flatMap { context.value($0, "'default' of \(what)") },
            conversion: m["convert"].flatMap { context.choice($0, "conversion", as: Conversion.self) }, array: array)
    }

    /// A rule's path, and what is made of the array it reads: `labels[].name` reads `labels` and
    /// takes each element's `name`; `reduction` (`array:`) says what becomes of them (all by default).
    private func parseRulePath(_ text: String, _ node: YAMLNode, _ what: String, reduction: ArrayOperation.Reduction?, separator: String?)
        -> (ValuePath, ArrayOperation?)?
    {
        guard let (arrayText, eachText) = ArrayOperation.split(text) else {
            guard let path = parsePath(text, node, what) else { return nil }
            return (path, reduction.map { ArrayOperation(each: nil, reduction: $0, separator: separator ?? ", ") })
        }
        guard let path = parsePath(arrayText, node, what) else { return nil }
        var each: ValuePath?
        if let eachText {
            if eachText.contains("[]") {
                context.error("\(what): '\(text)' takes one '[]'; read nested arrays with a step (explode) first", at: node.location)
                return nil
            }
            guard let parsed = parsePath(eachText, node, what) else { return nil }
            each = parsed
        }
        return (path, ArrayOperation(each: each, reduction: reduction ?? .list, separator: separator ?? ", "))
    }

    func parsePath(_ text: String, _ node: YAMLNode, _ what: String) -> ValuePath? {
        do { return try ValuePath(parsing: text) } catch {
            context.error("\(what): \(error.message)", at: context.location(in: node, column: error.column))
            return nil
        }
    }
}
