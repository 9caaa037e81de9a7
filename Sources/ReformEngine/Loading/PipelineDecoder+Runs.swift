public import ReformSDK
import ReformYAML

extension PipelineDecoder {
    static let runKeys = PipelineSchema.run.keyNames
    static let outputKeys = PipelineSchema.output.keyNames

    func decodeRuns(
        _ node: YAMLNode, managers: [ManagerPlan], reformers: [String: ReformerPlan], rows: [String: RowsPlan]
    ) -> [RunPlan] {
        namedEntries(node, "runs").compactMap { entry in
            let what = "run '\(entry.key)'"
            guard let m = context.mapping(entry.value, what, allowed: PipelineDecoder.runKeys) else { return nil }
            var refs = managers.map(\.ref)
            if let list = m["managers"] {
                let items: [YAMLNode]
                if case .sequence(let s) = list.content { items = s } else { items = [list] }
                refs = items.compactMap { item in
                    guard let name = context.string(item, "'managers' of \(what)") else { return nil }
                    guard let manager = managers.first(where: { $0.ref.name == name }) else {
                        unknownReference("manager", name, known: managers.map(\.ref.name), at: item.location)
                        return nil
                    }
                    return manager.ref
                }
            }
            checkIncrementalMix(refs.map { managers[$0.index] }, what, at: entry.keyLocation)
            var params: [String: Value] = [:]
            if let p = m["params"], let pm = context.mapping(p, "'params' of \(what)", allowed: nil) {
                // The parents a fan-out lands for its children take the run's parameters too.
                var runManagers: [ManagerPlan] = []
                func add(_ manager: ManagerPlan) {
                    guard !runManagers.contains(where: { $0.ref == manager.ref }) else { return }
                    runManagers.append(manager)
                    if let parent = manager.partitions?.parent, parent.index < managers.count { add(managers[parent.index]) }
                }
                for ref in refs where ref.index < managers.count { add(managers[ref.index]) }
                for e in pm.entries {
                    guard let value = context.value(e.value, "parameter '\(e.key)' of \(what)") else { continue }
                    let declared = runManagers.compactMap { mgr in mgr.params.first { $0.name == e.key } }
                    if declared.isEmpty {
                        let known = Set(runManagers.flatMap { $0.params.map(\.name) })
                        context.error(
                            "parameter '\(e.key)' of \(what) is not declared by any of its managers"
                                + Suggestions.hint(for: e.key, in: known),
                            at: e.keyLocation)
                    }
                    for param in declared {
                        if let problem = param.problem(with: value) {
                            context.error("parameter '\(e.key)' of \(what): \(problem)", at: e.value.location)
                            break
                        }
                    }
                    params[e.key] = value
                }
            }
            var outputs: [OutputPlan] = []
            if let list = m["outputs"] {
                for key in ["reform", "rows", "output"] {
                    if let e = m.entry(key) {
                        context.error("\(what) has 'outputs', so '\(key)' belongs inside each output", at: e.keyLocation)
                    }
                }
                guard case .sequence(let items) = list.content, !items.isEmpty else {
                    context.error("'outputs' of \(what) must be a non-empty list of outputs", at: list.location)
                    return nil
                }
                for item in items {
                    guard let om = context.mapping(item, "an output of \(what)", allowed: PipelineDecoder.outputKeys) else { continue }
                    if let output = decodeOutput(om, om, what, refs, reformers, rows) { outputs.append(output) }
                }
                let toStdout = outputs.filter(\.writesToStandardOutput)
                if toStdout.count > 1 {
                    context.error(
                        "\(toStdout.count) outputs of \(what) write to standard output; give all but one a 'path'",
                        at: list.location)
                }
                var tables: [String: TablePlan] = [:]
                for table in outputs.compactMap(\.table) {
                    let database = table.engine == .sqlite ? FilePaths.canonical(table.database) : table.database
                    let name = table.engine.rawValue + ":" + database + "#" + table.name.lowercased()
                    if let first = tables[name] {
                        context.error(
                            "two outputs of \(what) load table '\(table.name)' of \(table.engine == .sqlite ? table.database : PostgresURL(table.database).displayName) (the first at line "
                                + "\(first.location.line)); give each output a table of its own",
                            at: table.location)
                    }
                    tables[name] = table
                }
            } else {
                let om = m["output"].flatMap {
                    context.mapping($0, "'output' of \(what)", allowed: PipelineSchema.outputSettings.keyNames)
                }
                if let output = decodeOutput(m, om, what, refs, reformers, rows) { outputs.append(output) }
            }
            return RunPlan(name: entry.key, managers: refs, params: params, outputs: outputs, location: entry.keyLocation)
        }
    }

    /// An output: its chain from `chainSource["reform"]`, rows/format/path from `settings`.
    private func decodeOutput(
        _ chainSource: Mapping, _ settings: Mapping?, _ what: String, _ managers: [ManagerRef],
        _ reformers: [String: ReformerPlan], _ rows: [String: RowsPlan]
    ) -> OutputPlan? {
        var names: [(String, SourceLocation)] = []
        if let r = chainSource["reform"] {
            let items: [YAMLNode]
            if case .sequence(let s) = r.content { items = s } else { items = [r] }
            for item in items {
                if let name = context.string(item, "'reform' of \(what)") { names.append((name, item.location)) }
            }
        }
        let rowsNode = settings?["rows"] ?? chainSource["rows"]
        let format = settings?["format"].flatMap { context.choice($0, "output format", as: OutputFormat.self) }
        let path = settings?["path"].flatMap { node in
            context.string(node, "'path' of an output of \(what)").flatMap { checkedOutputPath($0, what, at: node.location) }
        }
        var byteOrderMark = false
        if let node = settings?["bom"], let bom = context.bool(node, "'bom' of \(what)") {
            byteOrderMark = bom
            if bom, let format, format != .csv {
                context.error(
                    "'bom' (the UTF-8 byte-order mark spreadsheet programs need) is for csv outputs; this output is \(format.rawValue)",
                    at: node.location)
            }
        }
        var escapeFormulas: Bool?
        if let node = settings?["escape_formulas"], let escape = context.bool(node, "'escape_formulas' of \(what)") {
            escapeFormulas = escape
            if let format, format != .csv {
                context.error(
                    "'escape_formulas' (a ' before CSV cells a spreadsheet would run as formulas) is for csv outputs; "
                        + "this output is \(format.rawValue)",
                    at: node.location)
            }
        }
        let (chain, keys) = checkChain(names, managers: managers, reformers: reformers, what)
        if let settings, settings["sqlite"] != nil || settings["postgres"] != nil {
            // A table that cannot be loaded has its errors already; no stand-in output is made.
            guard let table = decodeTable(settings, chain: chain, keys: keys, managers: managers, what) else { return nil }
            return OutputPlan(
                chain: chain, rows: nil, format: nil, path: nil, keys: keys?.constants, byteOrderMark: false, table: table,
                location: chainSource.node.location)
        }
        for key in PipelineDecoder.tableOutputKeys.dropFirst(2) {
            if let entry = settings?.entry(key) {
                context.error(
                    "'\(key)' of an output of \(what) is for table outputs; add 'sqlite: PATH' (the database file) or 'postgres: URL', or remove it",
                    at: entry.keyLocation)
            }
        }
        var rowsPlan: RowsPlan?
        if let rowsNode, let name = context.string(rowsNode, "'rows' of \(what)") {
            if let declared = rows[name] {
                rowsPlan = resolveRows(declared, keys: keys, managers: managers, at: rowsNode.location, what)
            } else {
                unknownReference("row shape", name, known: rows.keys.sorted(), at: rowsNode.location)
            }
        }
        return OutputPlan(
            chain: chain, rows: rowsPlan, format: format, path: path, keys: keys?.constants, byteOrderMark: byteOrderMark, table: nil,
            location: chainSource.node.location, escapeFormulas: escapeFormulas)
    }
}

extension ParamPlan {
    /// What is wrong with `value` for this parameter, or `nil` when it passes every declared check.
    public func problem(with value: Value) -> String? {
        if let kind {
            let fits: Bool
            switch (kind, value) {
            case (.string, .string), (.int, .int), (.double, .int), (.double, .double), (.bool, .bool): fits = true
            case (.int, .string(let s)): fits = Int(s) != nil
            case (.double, .string(let s)): fits = Double(s) != nil
            case (.bool, .string(let s)): fits = s == "true" || s == "false"
            default: fits = false
            }
            if !fits { return "expected \(kind.rawValue), got \(value.kindName) \(value.briefDescription)" }
        }
        if let pattern, let text = value.stringValue ?? (value.isNull ? nil : value.plainText) {
            if let regex = try? Regex(pattern), (try? regex.wholeMatch(in: text)) == nil {
                return "'\(text)' does not match the pattern \(pattern)"
            }
        }
        let number = value.doubleValue ?? value.stringValue.flatMap { Double($0) }
        if let minimum, let number, number < minimum { return "\(value.plainText) is below the minimum \(minimum.clean)" }
        if let maximum, let number, number > maximum { return "\(value.plainText) is above the maximum \(maximum.clean)" }
        if let allowed, !allowed.contains(value) {
            return "\(value.briefDescription) is not one of: \(allowed.map(\.plainText).joined(separator: ", "))"
        }
        return nil
    }
}

extension Double {
    var clean: String { rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}

extension PipelineDecoder {
    /// An incremental run appends to its outputs: a manager of it that is not incremental would
    /// write all its records again on every run.
    func checkIncrementalMix(_ managers: [ManagerPlan], _ what: String, at location: SourceLocation) {
        guard managers.contains(where: { $0.incremental != nil }) else { return }
        for manager in managers where manager.incremental == nil {
            context.warning(
                "manager '\(manager.ref.name)' of \(what) is not incremental, but the run appends to its outputs (others are): "
                    + "its records are written again on every run; give it 'incremental:', or land it in a run of its own",
                at: location)
        }
    }
}
