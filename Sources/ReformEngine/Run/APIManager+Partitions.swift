public import ReformSDK

/// Partitions and saved state from Swift: the managers of a fan-out, each with its partition's
/// parameters and, for an incremental manager, the cursor parameter its bookmark gives.
///
/// ```swift
/// var state = try StateStore.load(path: "issues.state.json")
/// let partitions = try plan.partitions!.partitions(params: ["repo": "widgets,gadgets"])
/// for (partition, manager) in APIManager.partitioned(plan: plan, client: client, partitions: partitions, state: state) {
///     var landing = try await manager.load()
///     state.advance(plan, partition: partition.label, past: landing.records)
///     while let next = try await manager.loadNextPage() { state.advance(plan, partition: partition.label, past: next.records) }
/// }
/// try state.save()
/// ```
extension APIManager {
    /// One manager per partition of `plan`, in partition order: `params` with the partition's
    /// parameters over them and, when `plan` is incremental, the cursor parameter from `state`'s
    /// bookmark for that partition (less the lookback; `start` on a first run).
    public static func partitioned(
        plan: ManagerPlan, client: ServiceClient, params: [String: Value] = [:], partitions: [Partition], state: StateStore? = nil,
        interceptors: [any Interceptor] = []
    ) -> [(partition: Partition, manager: APIManager)] {
        partitions.map { partition in
            var merged = params
            for (name, value) in partition.params { merged[name] = value }
            if let state { merged.merge(state.params(for: plan, partition: partition.label)) { $1 } }
            return (partition, APIManager(plan: plan, client: client, params: merged, interceptors: interceptors))
        }
    }
}

extension PartitionPlan {
    /// The partitions of a list or range fan-out, with the run's `params` (a value of the
    /// partition parameter, split at commas, replaces the declared list). Throws for a parent →
    /// child fan-out, whose partitions come from records: use ``partitions(fromParentRecords:)``.
    public func partitions(params: [String: Value] = [:]) throws(SourceError) -> [Partition] {
        switch source {
        case .values(let param, let declared):
            var values = declared
            if let given = params[param] {
                values = given.plainText.split(separator: ",").map { .string($0.trimmingCharacters(in: " ")) }
                    .filter { $0.plainText != "" }
            }
            return values.enumerated().map { Partition(index: $0.offset, params: [(param, $0.element)]) }
        case .range(let param, let range):
            return range.values.enumerated().map { Partition(index: $0.offset, params: [(param, $0.element)]) }
        case .parent(let parent, _):
            throw SourceError(
                manager: parent.name,
                message: "the partitions come from the records of '\(parent.name)': use partitions(fromParentRecords:)")
        }
    }

    /// The distinct partitions a parent → child fan-out makes from the parent's `records`, in
    /// order; records without a field a partition needs make none.
    public func partitions(fromParentRecords records: [Value]) -> [Partition] {
        var collector = PartitionCollector()
        for record in records {
            if case .success(let params) = params(fromParentRecord: record) { collector.add(params) }
        }
        return collector.list
    }
}

extension StateStore {
    /// The cursor parameter an incremental `plan` sends for `partition`: its bookmark less the
    /// lookback, or the declared `start`; none when there is neither (or `plan` is not incremental).
    public func params(for plan: ManagerPlan, partition: String) -> [String: Value] {
        guard let incremental = plan.incremental else { return [:] }
        let bookmark = bookmarks(of: plan.ref.name)[partition] ?? incremental.start
        guard let bookmark else { return [:] }
        return [incremental.param: IncrementalCursor(format: incremental.format).sent(bookmark, lookback: incremental.lookback)]
    }

    /// Moves the bookmark of `plan`'s `partition` to the highest cursor among `records`, when that
    /// is past it.
    public mutating func advance(_ plan: ManagerPlan, partition: String, past records: [Value]) {
        guard let incremental = plan.incremental else { return }
        let cursor = IncrementalCursor(format: incremental.format)
        var entry = self.partition(partition, of: plan.ref.name)
        var best = entry["bookmark"].flatMap { $0.isNull ? nil : cursor.position(of: $0).map { ($0, entry["bookmark"] ?? .null) } }
        for record in records {
            guard let value = record[path: incremental.cursor], let position = cursor.position(of: value) else { continue }
            if best.map({ position > $0.0 }) ?? true { best = (position, value) }
        }
        guard let best else { return }
        entry["bookmark"] = best.1
        setPartition(partition, of: plan.ref.name, to: entry)
    }
}
