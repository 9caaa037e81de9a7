import ReformSDK

/// One step of a ``StepsReformer`` with its running state (seen keys, counts, held records).
struct StepState {
    let plan: StepPlan
    private var seen: Set<Value> = []
    private var count = 0
    /// A `sort` step's records, held (up to its memory budget, then spilled) until the end.
    private var held: ExternalSort<Record>?
    /// A `sort` step's records in order, once the end of the stream released them.
    private var released: SortedElements<Record>?

    /// The step of `plan`; a `sort` keeps about `sortMemory` bytes of records in memory.
    init(_ plan: StepPlan, sortMemory: Int = ExternalSort<Record>.defaultBudget) {
        self.plan = plan
        if case .sort(_, let descending) = plan.kind {
            held = ExternalSort(budget: sortMemory, descending: descending, context: ())
        }
    }

    mutating func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
        let value = record.value
        switch plan.kind {
        case .explode(let path):
            guard case .array(let items)? = value[path: path] else {
                throw RecordError(
                    code: "wrong-type",
                    message: "step 'explode' needs an array at '\(path)'; found \(value[path: path]?.kindName ?? "nothing")")
            }
            for item in items {
                out.append(Record(try StepState.replacing(path, in: value, with: item), origin: record.origin))
            }
        case .pick(let keys):
            let object = try StepState.object(value, plan.name)
            var picked = Object(minimumCapacity: keys.count)
            for key in keys {
                guard let v = object[key] else {
                    throw RecordError(code: "missing-field", message: "step 'pick' needs '\(key)', which this record lacks")
                }
                picked.appendNew(key: key, value: v)
            }
            out.append(Record(.object(picked), origin: record.origin))
        case .drop(let keys):
            var object = try StepState.object(value, plan.name)
            for key in keys { object[key] = nil }
            out.append(Record(.object(object), origin: record.origin))
        case .rename(let pairs):
            let object = try StepState.object(value, plan.name)
            var renamed = Object(minimumCapacity: object.count)
            for member in object.members {
                let key = pairs.first { $0.from == member.key }?.to ?? member.key
                renamed[key] = member.value
            }
            out.append(Record(.object(renamed), origin: record.origin))
        case .defaults(let pairs):
            var object = try StepState.object(value, plan.name)
            for (key, fallback) in pairs where object[key] == nil || object[key]?.isNull == true { object[key] = fallback }
            out.append(Record(.object(object), origin: record.origin))
        case .convert(let pairs):
            var object = try StepState.object(value, plan.name)
            for (key, conversion) in pairs {
                if let v = object[key] { object[key] = try conversion.apply(v, key: key) }
            }
            out.append(Record(.object(object), origin: record.origin))
        case .set(let pairs):
            var object = try StepState.object(value, plan.name)
            for (key, template) in pairs { object[key] = .string(try template.render(value)) }
            out.append(Record(.object(object), origin: record.origin))
        case .filter(let condition):
            if condition.holds(for: value) { out.append(record) }
        case .sort(let path, _):
            // Keys compare as the output writes them (``Value/asWritten``).
            do { try held?.append(record, key: (value[path: path] ?? .null).asWritten) } catch { throw error.recordError }
        case .dedupe(let paths):
            // One path's value is its own key (equal exactly when the one-element lists would be),
            // without a list made per record.
            let key: Value =
                paths.isEmpty
                ? value : paths.count == 1 ? value[path: paths[0]] ?? .null : .array(paths.map { value[path: $0] ?? .null })
            if seen.insert(key.asWritten).inserted { out.append(record) }
        case .limit(let limit):
            if count < limit {
                count += 1
                out.append(record)
            }
        case .component(let component):
            try component.step.apply(record, into: &out)
        }
    }

    /// The next record this step held until the end of the stream (a sort's, in order), or `nil`
    /// when none are left; call it only after the last ``apply(_:into:)``.
    mutating func nextReleased() throws(SpillError) -> Record? {
        if released == nil, var sort = held {
            held = nil
            released = sort.sorted()
        }
        return try released?.next()
    }

    private static func object(_ value: Value, _ step: String) throws(RecordError) -> Object {
        guard case .object(let o) = value else {
            throw RecordError(code: "not-an-object", message: "step '\(step)' needs an object record; this one is \(value.kindName)")
        }
        return o
    }

    private static func replacing(_ path: ValuePath, in value: Value, with element: Value) throws(RecordError) -> Value {
        func replace(_ v: Value, _ components: ArraySlice<ValuePath.Component>) -> Value {
            guard let first = components.first else { return element }
            switch (first, v) {
            case (.key(let k), .object(var o)):
                o[k] = replace(o[k] ?? .null, components.dropFirst())
                return .object(o)
            case (.index(let i), .array(var a)):
                let at = i < 0 ? a.count + i : i
                guard a.indices.contains(at) else { return v }
                a[at] = replace(a[at], components.dropFirst())
                return .array(a)
            default:
                return v
            }
        }
        return replace(value, path.components[...])
    }
}
