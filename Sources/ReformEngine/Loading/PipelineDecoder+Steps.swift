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
        case "explode":
            return need().flatMap { context.path($0, what) }.map(StepPlan.Kind.explode)
        case "pick":
            return need().flatMap { context.stringList($0, what) }.map(StepPlan.Kind.pick)
        case "drop":
            return need().flatMap { context.stringList($0, what) }.map(StepPlan.Kind.drop)
        case "rename":
            let renames = need().flatMap { context.keyed($0, what) { context.string($0.value, what) } }
            return renames.map { .rename($0.map { (from: $0.key, to: $0.value) }) }
        case "defaults":
            let values = need().flatMap { context.keyed($0, what) { context.value($0.value, what) } }
            return values.map { .defaults($0.map { (key: $0.key, value: $0.value) }) }
        case "convert":
            let conversions = need().flatMap { context.keyed($0, what) { context.choice($0.value, "conversion", as: Conversion.self) } }
            return conversions.map { .convert($0.map { (key: $0.key, conversion: $0.value) }) }
        case "set":
            let templates = need().flatMap { context.keyed($0, what) { decodeTemplate($0.value, "'\($0.key)' in \(what)") } }
            return templates.map { .set($0.map { (key: $0.key, template: $0.value) }) }
        case "filter":
            guard let node = need(), let text = context.string(node, what) else { return nil }
            do { return .filter(try Condition(parsing: text)) } catch {
                context.error("\(what): \(error.message)", at: context.location(in: node, column: error.column))
                return nil
            }
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
