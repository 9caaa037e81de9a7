import ReformSDK
import ReformYAML

extension PipelineDecoder {
    package static let stepNames = PipelineSchema.stepEntry.keyNames

    func decodeSteps(_ node: YAMLNode, _ owner: String) -> [StepPlan]? {
        guard case .sequence(let items) = node.content else {
            context.error("'steps' of \(owner) must be a list, as in '- filter: \"price > 0\"'", at: node.location)
            return nil
        }
        var steps: [StepPlan] = []
        var ok = true
        for item in items {
            var name: String
            var argument: YAMLNode?
            var location = item.location
            switch item.content {
            case .scalar(let s):
                name = s.text
            case .mapping(let pairs) where pairs.count == 1:
                guard case .scalar(let s) = pairs[0].key.content else {
                    ok = false
                    continue
                }
                name = s.text
                argument = pairs[0].value
                location = pairs[0].key.location
            default:
                context.error(
                    "each step of \(owner) is one name and its argument, as in '- limit: 10'; found \(item.kindDescription)",
                    at: item.location)
                ok = false
                continue
            }
            guard PipelineDecoder.stepNames.contains(name) else {
                context.error(
                    "unknown step '\(name)' in \(owner)\(Suggestions.hint(for: name, in: PipelineDecoder.stepNames)); "
                        + "steps: \(PipelineDecoder.stepNames.joined(separator: ", "))",
                    at: location)
                ok = false
                continue
            }
            if let kind = decodeStep(name, argument, at: location, owner) {
                steps.append(StepPlan(kind: kind, name: name, location: location))
            } else {
                ok = false
            }
        }
        return ok ? steps : nil
    }

    private func decodeStep(_ name: String, _ arg: YAMLNode?, at location: SourceLocation, _ owner: String) -> StepPlan.Kind? {
        guard let step = BuiltInSteps.step(named: name) else { return nil }
        let argument = StepArgument(node: arg, location: location, what: "step '\(name)' of \(owner)", context: context)
        return step.decode(argument)?.planned
    }
}

extension YAMLNode {
    /// Whether this is a null scalar (`~`, `null` or nothing).
    var isNullScalar: Bool {
        if case .scalar(let s) = content, case .null = s.value { return true }
        return false
    }
}
