import ReformSDK
import ReformYAML

/// `for_each:` of a manager: its partitions (a list, a range, or another manager's records).
extension PipelineDecoder {
    static let forEachKeys = PipelineSchema.forEach.keyNames
    static let rangeKeys = PipelineSchema.range.keyNames

    /// The partitions of manager `what`; `managers` are every manager's names in declared order
    /// (for parent references), `params` the manager's declared parameters.
    func decodePartitions(_ node: YAMLNode, _ what: String, self name: String, managers: [String], params: [ParamPlan])
        -> PartitionPlan?
    {
        let owner = "'for_each' of \(what)"
        guard let m = context.mapping(node, owner, allowed: PipelineDecoder.forEachKeys) else { return nil }
        let concurrency = m["concurrency"].flatMap { context.int($0, "'concurrency' in \(owner)", in: 1...256) } ?? 1
        let onError = m["on_error"].flatMap { context.choice($0, "partition failure policy", as: PartitionFailurePolicy.self) } ?? .fail
        // A typo in a range must not start a million requests, nor a parent hold more than memory allows.
        let limit =
            m["max_partitions"].flatMap { context.int($0, "'max_partitions' in \(owner)", in: 1...PartitionPlan.maxPartitionsCeiling) }
            ?? PartitionPlan.defaultMaxPartitions
        func declared(_ param: String, at location: SourceLocation) {
            if !params.contains(where: { $0.name == param }) {
                context.error(
                    "\(owner) sets parameter '\(param)', which \(what) does not declare"
                        + Suggestions.hint(for: param, in: params.map(\.name)) + "; declare it under 'params'",
                    at: location)
            }
        }
        let source: PartitionPlan.Source?
        if let parentNode = m["manager"] {
            for key in ["param", "values", "range"] where m[key] != nil {
                context.error(
                    "\(owner) takes 'manager' (a parent) or 'param', not both; remove '\(key)'", at: m[key]?.location ?? node.location)
            }
            source = decodeParent(parentNode, m, owner, self: name, managers: managers, declared: declared)
        } else if let paramNode = context.requireKey("param", in: m, owner + " (or 'manager' for a parent → child fan-out)"),
            let param = context.string(paramNode, "'param' in \(owner)")
        {
            declared(param, at: paramNode.location)
            if m["values"] != nil && m["range"] != nil {
                context.error("\(owner) takes 'values' or 'range', not both", at: m["range"]?.location ?? node.location)
            }
            if let range = m["range"] {
                source = decodeRange(range, owner, limit: limit).map { .range(param: param, $0) }
            } else if let valuesNode = m["values"] {
                guard case .array(let values)? = context.value(valuesNode, "'values' in \(owner)") else {
                    context.error("'values' in \(owner) must be a list of parameter values", at: valuesNode.location)
                    return nil
                }
                if values.count > limit {
                    context.error(
                        "'values' in \(owner) has \(values.count) entries; at most \(limit) (raise 'max_partitions' to run more)",
                        at: valuesNode.location)
                }
                source = .values(param: param, values)
            } else {
                // The run's value of the parameter, split at commas (`--param repo=a,b`).
                source = .values(param: param, [])
            }
        } else {
            source = nil
        }
        guard let source else { return nil }
        return PartitionPlan(source: source, concurrency: concurrency, onError: onError, maxPartitions: limit, location: node.location)
    }

    private func decodeParent(
        _ node: YAMLNode, _ m: Mapping, _ owner: String, self name: String, managers: [String],
        declared: (String, SourceLocation) -> Void
    ) -> PartitionPlan.Source? {
        guard let parent = context.string(node, "'manager' in \(owner)") else { return nil }
        guard let index = managers.firstIndex(of: parent) else {
            unknownReference("manager", parent, known: managers, at: node.location)
            return nil
        }
        if parent == name {
            context.error("\(owner) names the manager itself; a partition's parent must be another manager", at: node.location)
            return nil
        }
        guard let paramsNode = context.requireKey("params", in: m, owner + " (which parameter comes from which field of the parent)"),
            let pm = context.mapping(paramsNode, "'params' in \(owner)", allowed: nil)
        else { return nil }
        var params: [(name: String, path: ValuePath)] = []
        for entry in pm.entries {
            declared(entry.key, entry.keyLocation)
            if let path = context.path(entry.value, "the field for '\(entry.key)' in \(owner)") { params.append((entry.key, path)) }
        }
        if pm.entries.isEmpty { context.error("'params' in \(owner) must set at least one parameter", at: paramsNode.location) }
        return .parent(manager: ManagerRef(index: index, name: parent), params: params)
    }

    private func decodeRange(_ node: YAMLNode, _ owner: String, limit: Int) -> PartitionRange? {
        let what = "'range' in \(owner)"
        guard let m = context.mapping(node, what, allowed: PipelineDecoder.rangeKeys),
            let fromNode = context.requireKey("from", in: m, what), let toNode = context.requireKey("to", in: m, what)
        else { return nil }
        let from = context.value(fromNode, "'from' in \(what)")
        let to = context.value(toNode, "'to' in \(what)")
        let range: PartitionRange
        switch (from, to) {
        case (.int(let a)?, .int(let b)?):
            let step = m["step"].flatMap { context.int($0, "'step' in \(what)", in: 1...Int.max) } ?? 1
            guard a <= b else {
                context.error("'from' in \(what) is \(a), after 'to' (\(b)); no partition would run", at: fromNode.location)
                return nil
            }
            range = .numbers(from: a, to: b, step: step)
        case (.string(let a)?, .string(let b)?):
            guard let start = CivilDate.parse(.string(a)), start.seconds == nil else {
                context.error("'from' in \(what) must be a number or a date like 2026-01-31, not '\(a)'", at: fromNode.location)
                return nil
            }
            guard let end = CivilDate.parse(.string(b)), end.seconds == nil else {
                context.error("'to' in \(what) must be a date like 2026-01-31, as 'from' is, not '\(b)'", at: toNode.location)
                return nil
            }
            var days = 1
            if let stepNode = m["step"] {
                guard let text = context.string(stepNode, "'step' in \(what)"), text.hasSuffix("d"), let n = Int(text.dropLast()), n >= 1
                else {
                    context.error("'step' in \(what) must be a number of days like 1d or 7d", at: stepNode.location)
                    return nil
                }
                days = n
            }
            guard start.iso8601 <= end.iso8601 else {
                context.error("'from' in \(what) is \(a), after 'to' (\(b)); no partition would run", at: fromNode.location)
                return nil
            }
            range = .days(from: start.iso8601, to: end.iso8601, stepDays: days)
        default:
            context.error("'from' and 'to' in \(what) must both be whole numbers or both be dates like 2026-01-31", at: node.location)
            return nil
        }
        if range.count > limit {
            let count = range.count == Int.max ? "more than \(Int.max)" : "\(range.count)"
            context.error(
                "\(what) makes \(count) partitions; at most \(limit) (a larger 'step'? or raise 'max_partitions')", at: node.location)
            return nil
        }
        return range
    }
}

extension PartitionRange {
    /// How many partitions the range makes.
    var count: Int {
        switch self {
        case .numbers(let from, let to, let step):
            let (span, overflow) = to.subtractingReportingOverflow(from)
            guard !overflow else { return Int.max }
            let (count, tooMany) = (span / step).addingReportingOverflow(1)
            return tooMany ? Int.max : count
        case .days(let from, let to, let step):
            guard let a = CivilDate.parse(.string(from)), let b = CivilDate.parse(.string(to)) else { return 0 }
            return (CivilDate.days(fromCivil: b.year, b.month, b.day) - CivilDate.days(fromCivil: a.year, a.month, a.day)) / step + 1
        }
    }
}
