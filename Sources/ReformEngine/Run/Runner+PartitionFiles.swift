import ReformSDK

/// Partitions of parent → child fan-outs listed once (``partitions(of:)``) and given to runs in
/// files (``RunOptions/partitionFiles``), so that the tasks of a sharded job do not each fetch
/// the parent level.
extension Runner {
    /// What ``partitions(of:)`` found.
    public struct PartitionListing: Sendable {
        /// The child's partitions, distinct, in the order its parents' records made them.
        public let partitions: [Partition]
        /// The landing of the parents: records landed, and parent records that made no partition
        /// (a field the child needs missing), which went to the dead-letter file.
        public let summary: RunSummary
    }

    /// Lands the parents of `manager` (a parent → child fan-out of the run), as on a first run
    /// and into no output, and returns the partitions their records make — what a run of
    /// `manager` fetches. A parent record without a field the child needs goes to the dead-letter
    /// file, as in a run. Written one JSON object a line, they are a partition file
    /// (``RunOptions/partitionFiles``).
    public func partitions(of manager: String) throws(RunError) -> PartitionListing {
        let plan = try chosenRun()
        // Parents the run lands only for their children may be given input files here.
        try checkInputs(
            of: RunPlan(name: plan.name, managers: landingOrder(of: plan), params: plan.params, outputs: [], location: plan.location))
        try checkParams(of: plan)
        let children = landingOrder(of: plan).filter { pipeline.managers[$0.index].partitions?.parent != nil }
        guard let child = children.first(where: { $0.name == manager }) else {
            let names = children.map(\.name)
            throw RunError(
                .unknownInput,
                "'\(manager)' is no manager of run '\(plan.name)' whose partitions come from another manager's records"
                    + Suggestions.hint(for: manager, in: names)
                    + (names.isEmpty ? " (it has none)" : " (its parent → child fan-outs: \(names.joined(separator: ", ")))"),
                manager: manager)
        }
        // Every partition: no shard, no state, no partitions given for this child.
        var options = options
        options.shard = nil
        options.partitionFiles.removeAll { $0.manager == manager }
        let lister = Runner(pipeline: pipeline, options: options)
        let parents = RunPlan(name: plan.name, managers: [child], params: plan.params, outputs: [], location: plan.location)
        var state = try lister.prepare(parents, incremental: nil)
        state.stopBefore = child.index
        do throws(RunError) {
            state.givenPartitions = try lister.givenPartitions(of: parents)
            try lister.landManagers(into: &state)
        } catch {
            throw lister.abandon(state, after: error)
        }
        try lister.commit(state)
        return PartitionListing(partitions: state.childPartitions[child.index]?.list ?? [], summary: lister.summary(of: state))
    }

    /// Reads the partition files of the run (``RunOptions/partitionFiles``), by manager index;
    /// throws, naming the file and line, for a manager that is no parent → child fan-out of the
    /// run or a line that is not an object of exactly its partition parameters.
    func givenPartitions(of plan: RunPlan) throws(RunError) -> [Int: [Partition]] {
        var given: [Int: [Partition]] = [:]
        let order = landingOrder(of: plan)
        for (name, path) in options.partitionFiles {
            guard let ref = order.first(where: { $0.name == name }), let partitions = pipeline.managers[ref.index].partitions,
                case .parent(let parent, let params) = partitions.source
            else {
                throw RunError(
                    .unknownInput,
                    "--partitions names manager '\(name)', which is no manager of run '\(plan.name)' whose partitions come from "
                        + "another manager's records",
                    manager: name)
            }
            let names = params.map(\.name)
            let bytes: [UInt8]
            do { bytes = try FilePaths.readAll(path) } catch {
                throw RunError(.source, "cannot read the partitions of '\(name)' in \(path): \(error)", manager: name)
            }
            var list: [Partition] = []
            for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
                guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) else { continue }
                func refuse(_ problem: String) -> RunError {
                    RunError(
                        .source,
                        "\(path):\(number + 1): \(problem); a partition of '\(name)' (made from the records of '\(parent.name)') is "
                            + "an object of its parameters \(names.joined(separator: ", ")), one a line, as "
                            + "'reform run --list-partitions \(name)' writes them",
                        manager: name)
                }
                guard case .object(let object) = try? JSON.parse(Array(line), limits: options.recordLimits) else {
                    throw refuse("not a JSON object")
                }
                guard object.keys.sorted() == names.sorted() else { throw refuse("it has \(object.keys.joined(separator: ", "))") }
                var values: [(name: String, value: Value)] = []
                for param in names {
                    let value = object[param] ?? .null
                    guard !value.isNull, value.arrayValue == nil, value.objectValue == nil else {
                        throw refuse("'\(param)' is \(value.isNull ? "null" : "a list or an object"), not a value")
                    }
                    values.append((param, value))
                }
                guard list.count < partitions.maxPartitions else {
                    throw RunError(
                        .partitionLimit,
                        "\(path) gives more than \(partitions.maxPartitions) partitions of '\(name)', its max_partitions; "
                            + "raise it in its for_each", manager: name)
                }
                list.append(Partition(index: list.count, params: values))
            }
            given[ref.index] = list
        }
        return given
    }
}
