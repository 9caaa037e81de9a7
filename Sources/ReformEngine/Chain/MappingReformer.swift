public import ReformSDK

/// The reformer of seeds/004: each manager's own field names into one set of constant keys.
///
/// Output records hold exactly the declared keys, in declared order. A source field that is
/// missing rejects the record unless its rule is optional (then it holds its default, or null).
public struct MappingReformer: Reformer {
    enum Source {
        case key(String)
        case path(ValuePath)
        case template(Template)
        case constant(Value)
    }

    struct Rule {
        let constant: String
        let name: String
        let source: Source
        let optional: Bool
        let defaultValue: Value?
        let conversion: Conversion?
        let array: ArrayOperation?
    }

    /// The reformer's name in the pipeline.
    public let name: String
    /// The declared keys.
    public let keys: KeySet?
    private let rulesByManager: [Int: [Rule]]
    private let sharedRules: [Rule]?

    /// A mapping reformer from its plan.
    public init(name: String, keys: KeySet, plan: MappingPlan) {
        self.name = name
        self.keys = keys
        func compile(_ rules: [FieldRule]) -> [Rule] {
            rules.map { rule in
                let source: Source
                switch rule.source {
                case .path(let p):
                    if p.components.count == 1, case .key(let k) = p.components[0] { source = .key(k) } else { source = .path(p) }
                case .template(let t): source = .template(t)
                case .constant(let v): source = .constant(v)
                }
                let shortName = keys.keys.first { $0.constant == rule.constant }?.name ?? rule.constant
                return Rule(
                    constant: rule.constant, name: shortName, source: source, optional: rule.optional,
                    defaultValue: rule.defaultValue, conversion: rule.conversion, array: rule.array)
            }
        }
        rulesByManager = plan.perManager.mapValues(compile)
        sharedRules = plan.shared.map(compile)
    }

    /// Maps one record into the declared keys.
    public mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
        guard case .object(let object) = record else {
            throw RecordError(
                code: "not-an-object",
                message: "reformer '\(name)' maps fields, so each record must be an object; this one is \(record.kindName)")
        }
        guard let rules = rulesByManager[manager.index] ?? sharedRules else {
            throw RecordError(code: "no-mapping", message: "reformer '\(name)' has no mapping for manager '\(manager.name)'")
        }
        var out = Object(minimumCapacity: rules.count)
        for rule in rules {
            var value: Value?
            switch rule.source {
            case .key(let k): value = object[k]
            case .path(let p): value = object[path: p]
            case .template(let t): value = .string(try t.render(record))
            case .constant(let v): value = v
            }
            if let array = rule.array { value = try array.apply(value, key: rule.name) }
            if value == nil || value?.isNull == true, let fallback = rule.defaultValue {
                value = fallback
            }
            guard var found = value else {
                if rule.optional {
                    out.appendNew(key: rule.constant, value: .null)
                    continue
                }
                throw RecordError(
                    code: "missing-field",
                    message: "record has no '\(rule.sourceDescription)', needed for key '\(rule.name)' of reformer '\(name)'; "
                        + "mark it optional ('\(rule.sourceDescription)?') or give a default")
            }
            if let conversion = rule.conversion { found = try conversion.apply(found, key: rule.name) }
            out.appendNew(key: rule.constant, value: found)
        }
        output.append(.object(out))
    }
}

extension MappingReformer.Rule {
    var sourceDescription: String {
        switch source {
        case .key(let k): k
        case .path(let p): p.description
        case .template(let t): t.description
        case .constant: "constant"
        }
    }
}
