import ReformSDK

/// Fan-out: the partitions of a manager in this run, and the source that reads them in order.
extension Runner {
    /// The partitions `manager` runs in this run: its list (or the run's comma-separated value of
    /// the parameter), its range, or one per distinct parent record landed earlier in the run.
    func partitions(of manager: ManagerPlan, plan: PartitionPlan, params: [String: Value], state: RunState) throws(SourceError)
        -> [Partition]
    {
        if case .parent = plan.source {
            return state.givenPartitions[manager.ref.index] ?? state.childPartitions[manager.ref.index]?.list ?? []
        }
        let partitions = try plan.partitions(params: params)
        if partitions.isEmpty, case .values(let param, _) = plan.source {
            throw SourceError(
                manager: manager.ref.name,
                message: "no partitions: 'for_each' runs it once per value of '\(param)'; give them with --param \(param)=A,B,C "
                    + "or in the run's params, or declare 'values:'")
        }
        return partitions
    }

    /// The contiguous block of `partitions` that shard `shard.index` of `shard.count` runs (all of
    /// them without a shard): blocks in shard order make the whole list in order.
    static func share(of partitions: [Partition], shard: (index: Int, count: Int)?) -> [Partition] {
        guard let shard, shard.count > 1 else { return partitions }
        let start = partitions.count * shard.index / shard.count
        let end = partitions.count * (shard.index + 1) / shard.count
        return Array(partitions[start..<end])
    }

    /// The children of the run's managers, by parent index: who needs whose records.
    func children(in plan: RunPlan) -> [Int: [ManagerPlan]] {
        var children: [Int: [ManagerPlan]] = [:]
        for ref in landingOrder(of: plan) {
            let manager = pipeline.managers[ref.index]
            guard !hasPartitionFile(ref.name) else { continue }
            if let parent = manager.partitions?.parent { children[parent.index, default: []].append(manager) }
        }
        return children
    }

    /// Whether the partitions of `manager` are given in a file (``RunOptions/partitionFiles``).
    func hasPartitionFile(_ manager: String) -> Bool {
        options.partitionFiles.contains { $0.manager == manager }
    }

    /// The managers a run lands, in order: its own, with each parent that is not among them
    /// landed just before its first child (its records only make partitions; they go to no output)
    /// unless the child's partitions are given in a file (or `withGivenParents`: the parents they
    /// stand for too, whose parameters a run still accepts).
    func landingOrder(of plan: RunPlan, withGivenParents: Bool = false) -> [ManagerRef] {
        var order: [ManagerRef] = []
        func add(_ ref: ManagerRef) {
            guard !order.contains(ref) else { return }
            if let parent = pipeline.managers[ref.index].partitions?.parent, withGivenParents || !hasPartitionFile(ref.name) {
                add(parent)
            }
            order.append(ref)
        }
        for ref in plan.managers { add(ref) }
        return order
    }
}
