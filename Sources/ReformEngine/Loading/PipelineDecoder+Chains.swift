import ReformSDK
import ReformYAML

/// Checking the key schema through a chain at load time: every key a step or row shape names must
/// be one the records carry at that point, and every mapping must cover every manager it will see.
extension PipelineDecoder {
    /// The chain's reformers with key references resolved, and the keys the chain ends with
    /// (`nil` when unknown: raw records, or steps that reshape records freely). Problems go to the
    /// context; checks after a bad link still run on what resolved, so one pass reports them all.
    func checkChain(
        _ names: [(String, SourceLocation)], managers: [ManagerRef], reformers: [String: ReformerPlan], _ what: String
    ) -> ([ReformerPlan], KeySet?) {
        var keys: KeySet?
        var chain: [ReformerPlan] = []
        for (name, location) in names {
            guard let reformer = reformers[name] else {
                if !declaredReformers.contains(name) {
                    unknownReference("reformer", name, known: declaredReformers.sorted(), at: location)
                }
                keys = nil
                continue
            }
            switch reformer.kind {
            case .mapping(let mapping):
                let uncovered = managers.filter { mapping.perManager[$0.index] == nil && mapping.shared == nil }
                if !uncovered.isEmpty {
                    context.error(
                        "reformer '\(name)' has no mapping for manager \(uncovered.map { "'\($0.name)'" }.joined(separator: ", ")) "
                            + "of \(what); add 'from.\(uncovered[0].name)' or a shared 'map'",
                        at: location)
                }
                chain.append(reformer)
                keys = reformer.keys
            case .steps(let steps):
                var resolved: [StepPlan] = []
                for step in steps {
                    guard let (kind, after) = resolveStep(step, keys: keys, reformer: name) else { continue }
                    resolved.append(StepPlan(kind: kind, name: step.name, location: step.location))
                    keys = after
                }
                chain.append(ReformerPlan(name: name, keys: reformer.keys, kind: .steps(resolved), location: reformer.location))
                if let declared = reformer.keys { keys = declared }
            case .plugin:
                chain.append(reformer)
                keys = reformer.keys
            }
        }
        return (chain, keys)
    }

    /// A step with its key names resolved against `keys`, and the keys after it.
    private func resolveStep(
        _ step: StepPlan, keys: KeySet?, reformer: String
    ) -> (StepPlan.Kind, KeySet?)? {
        var ok = true
        func constant(_ name: String) -> String {
            guard let keys else { return name }
            if let key = keys.key(named: name) { return key.constant }
            context.error(
                "step '\(step.name)' of reformer '\(reformer)' uses '\(name)', which records do not carry at that point"
                    + Suggestions.hint(for: name, in: keys.keys.map(\.name) + keys.constants)
                    + "; they carry: \(keys.keys.map(\.name).joined(separator: ", "))",
                at: step.location)
            ok = false
            return name
        }
        let result: (StepPlan.Kind, KeySet?)
        switch step.kind {
        case .holding(let holding): result = (.holding(HoldingComponent(holding.step.resolving(constant, keys: keys))), keys)
        case .component(let component):
            var after = keys
            result = (.component(ComponentStep(component.step.resolving(constant, keys: &after))), after)
        }
        return ok ? result : nil
    }
}
