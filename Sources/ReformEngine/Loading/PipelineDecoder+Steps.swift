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
        let what = "step '\(name)' of \(owner)"
        func need() -> YAMLNode? {
            guard let arg, !(arg.isNullScalar) else {
                context.error("\(what) needs an argument", at: location)
                return nil
            }
            return arg
        }
        switch name {
        case "sort":
            guard let node = need() else { return nil }
            if case .mapping = node.content {
                guard let m = context.mapping(node, what, allowed: PipelineSchema.sortOptions.keyNames),
                    let by = context.requireKey("by", in: m, what), let path = context.path(by, what)
                else { return nil }
                var descending = false
                if let order = m["order"], let text = context.string(order, what) {
                    guard text == "asc" || text == "desc" else {
                        context.error("'order' of \(what) must be 'asc' or 'desc', not '\(text)'", at: order.location)
                        return nil
                    }
                    descending = text == "desc"
                }
                return .sort(key: path, descending: descending)
            }
            return context.path(node, what).map { .sort(key: $0, descending: false) }
        case "dedupe":
            guard let arg, !arg.isNullScalar else { return .dedupe([]) }
            if case .scalar(let s) = arg.content, case .bool(true) = s.value { return .dedupe([]) }
            guard let names = context.stringList(arg, what) else { return nil }
            let paths = names.compactMap { parsePath($0, arg, what) }
            return paths.count == names.count ? .dedupe(paths) : nil
        case "limit":
            return need().flatMap { context.int($0, what, in: 0...Int.max) }.map(StepPlan.Kind.limit)
        default:
            guard let component = BuiltInSteps.component(named: name) else { return nil }
            let argument = StepArgument(node: arg, location: location, what: what, context: context)
            return component.decode(argument).map { .component(ComponentStep($0)) }
        }
    }
}

extension YAMLNode {
    /// Whether this is a null scalar (`~`, `null` or nothing).
    var isNullScalar: Bool {
        if case .scalar(let s) = content, case .null = s.value { return true }
        return false
    }
}
