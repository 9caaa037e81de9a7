@_spi(Engine) import ReformSDK

/// The run's execution plan: decided once before landing (``ExecutionPlanner``), kept in the
/// run's state for every part of the run to build from, and described for `--explain` and
/// `--stats json`.
extension Runner {
    /// The run's execution plan, without running it: nothing is opened, fetched or written.
    /// Throws what the run would throw before landing (no such run, an `--input` naming no
    /// manager of it, an input file that does not exist).
    public func explain() throws(RunError) -> ExecutionPlan {
        let plan = try chosenRun()
        try checkInputs(of: plan)
        let incremental = !options.isBatch && landingOrder(of: plan).contains { pipeline.managers[$0.index].incremental != nil }
        let outputs = outputExecutions(of: plan, incremental: incremental)
        let order = landingOrder(of: plan)
        let executions = try managerExecutions(
            of: order, children: children(in: plan), parentsOnly: parentsOnly(of: plan, order: order),
            isIncremental: { incremental && pipeline.managers[$0.index].incremental != nil }, outputs: outputs)
        for ref in order {
            for path in executions[ref.index]?.files ?? [] where !FilePaths.exists(path) {
                // As the run would say when it opens it (a table address or a byte range names
                // something else than a file: the run checks those).
                guard path != "-", TableAddress(path) == nil, InputRange.parse(path) == nil else { continue }
                throw RunError(SourceError(manager: ref.name, message: "\(path): cannot open the input: No such file or directory"))
            }
        }
        return describe(plan, outputs: outputs, order: order, executions: executions)
    }

    /// The plans of `plan`'s outputs; `incremental`: the run resumes its file outputs from checkpoints.
    func outputExecutions(of plan: RunPlan, incremental: Bool) -> [OutputExecution] {
        plan.outputs.map { output in
            ExecutionPlanner.output(
                output, options: options, resumable: incremental && OutputRuntime.path(of: output, options: options) != nil)
        }
    }

    /// The managers of `order` landed only because a child needs their records.
    func parentsOnly(of plan: RunPlan, order: [ManagerRef]) -> Set<Int> {
        Set(order.filter { !plan.managers.contains($0) }.map(\.index))
    }

    /// The plan of each manager of `order`, by index.
    func managerExecutions(
        of order: [ManagerRef], children: [Int: [ManagerPlan]], parentsOnly: Set<Int>, isIncremental: (ManagerRef) -> Bool,
        outputs: [OutputExecution]
    ) throws(RunError) -> [Int: ManagerExecution] {
        var executions: [Int: ManagerExecution] = [:]
        for ref in order {
            var files: [String] = []
            do throws(SourceError) {
                for input in options.inputs where input.manager == ref.name {
                    files += try InputFiles.expand(input.path, manager: ref.name)
                }
            } catch {
                throw RunError(error)
            }
            let isParent = children[ref.index] != nil
            let facts = ManagerFacts(
                files: files, tagged: !options.taggedInputs.isEmpty, isParent: isParent,
                toOutputsOnly: !isParent && !isIncremental(ref) && !parentsOnly.contains(ref.index))
            executions[ref.index] = ExecutionPlanner.manager(ref, facts: facts, outputs: outputs, options: options)
        }
        return executions
    }

    /// The description of the decided plan.
    func describe(_ plan: RunPlan, outputs: [OutputExecution], order: [ManagerRef], executions: [Int: ManagerExecution]) -> ExecutionPlan {
        let described = outputs.map { output in
            ExecutionPlan.Output(
                name: output.declared.destination.map { OutputRuntime.path(of: output.declared, options: options) ?? $0 } ?? "-",
                format: output.format?.rawValue ?? "table", reformers: output.declared.chain.map(\.name),
                rows: output.declared.rows?.name)
        }
        let parentsOnly = parentsOnly(of: plan, order: order)
        let managers = order.compactMap { ref -> ExecutionPlan.Manager? in
            guard let execution = executions[ref.index] else { return nil }
            let routes =
                parentsOnly.contains(ref.index)
                ? [] : outputs.indices.map { route(to: $0, of: ref, outputs: outputs, execution: execution) }
            return ExecutionPlan.Manager(
                name: ref.name, source: source(of: ref, files: execution.files), jobs: execution.parallel ? options.jobs : 1,
                oneThread: options.jobs > 1 && !execution.files.isEmpty ? execution.whyOneThread : nil,
                fields: execution.projection?.keys, routes: routes,
                why: execution.files.isEmpty && options.taggedInputs.isEmpty ? nil : execution.why)
        }
        return ExecutionPlan(run: plan.name, outputs: described, managers: managers)
    }

    /// Where `ref`'s records come from, in words.
    private func source(of ref: ManagerRef, files: [String]) -> String {
        let manager = pipeline.managers[ref.index]
        if !files.isEmpty { return "--input " + files.joined(separator: ", ") }
        if !options.taggedInputs.isEmpty { return "--tagged-input " + options.taggedInputs.joined(separator: ", ") }
        let perPartition = manager.partitions == nil ? "" : ", once per partition"
        if hasPartitionFile(ref.name) || manager.partitions != nil, isLive(manager) { return "its live API\(perPartition)" }
        if isLive(manager) { return "its live API" }
        if let fixtures = manager.fixtures { return "its fixtures in \(fixtures)\(perPartition)" }
        return "nothing to read"
    }

    /// The tiers `ref`'s records go through on their way to output `index`.
    private func route(to index: Int, of ref: ManagerRef, outputs: [OutputExecution], execution: ManagerExecution) -> ExecutionPlan.Route {
        let output = outputs[index]
        let reformers = output.plan.chain.map(\.name)
        let workersRun = execution.parallel ? ChainRunner.perRecordStages(output.plan.chain) : 0
        var segments: [ExecutionPlan.Segment] = []
        var rowsFromLine = false
        /// Adds `count` reformers from the next one on, in `tier`, split where the workers' part ends.
        func add(_ count: Int, _ tier: ExecutionPlan.Tier) {
            let start = segments.reduce(0) { $0 + $1.reformers.count }
            let names = Array(reformers[start..<min(start + count, reformers.count)])
            let onWorkers = names.indices.map { start + $0 < workersRun }
            var position = 0
            while position < names.count {
                let run = onWorkers[position...].prefix { $0 == onWorkers[position] }.count
                segments.append(
                    ExecutionPlan.Segment(reformers: Array(names[position..<position + run]), tier: tier, onWorkers: onWorkers[position]))
                position += run
            }
        }
        func encoded(_ kind: LineEncoder.Kind) {
            switch kind {
            case .mapping: add(reformers.count, .copied)
            case .chain: add(reformers.count, .compiled)
            case .rows: rowsFromLine = true
            case .chainRows:
                add(reformers.count, .compiled)
                rowsFromLine = true
            }
        }
        switch execution.lines {
        case .direct(.encoder(let kind)): encoded(kind)
        case .direct(.fieldReformer): add(reformers.count, .plugin)
        case .direct(.table): add(reformers.count, .table)
        case .fanOut(let shape):
            if index < shape.encoders.count, let kind = shape.encoders[index] {
                encoded(kind)
            } else if shape.boundTable {
                add(reformers.count, .table)
            } else if let stages = shape.restStages, shape.encoders.filter({ $0 == nil }).count == 1 {
                add(stages, .compiled)
            }
        case .prefix(let stages):
            if index == 0 { add(stages, .compiled) }
        case .values:
            break
        }
        add(reformers.count, .records)
        if segments.isEmpty, !rowsFromLine {
            // No reformers: records are written as they land.
            segments.append(ExecutionPlan.Segment(reformers: [], tier: .records, onWorkers: execution.parallel))
        }
        if let held = output.heldLines {
            segments.append(ExecutionPlan.Segment(reformers: [held.reformer], tier: .lines, onWorkers: false))
        }
        return ExecutionPlan.Route(output: index, segments: segments, rowsFromLine: rowsFromLine)
    }
}
