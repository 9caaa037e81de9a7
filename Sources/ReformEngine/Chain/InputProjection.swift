@_spi(Engine) import ReformSDK

/// Which fields of a manager's records the run has to build: when every output's chain starts
/// with a mapping (or a plugin that declares what it reads) or renders rows straight from the
/// records, the JSON readers skip every other field (``JSONProjection``).
enum InputProjection {
    /// The top-level fields of `manager`'s records that every output's chain reads, when each chain
    /// starts with a mapping or a plugin that says which fields it reads (so the rest need not be built); `nil` when some output needs whole records.
    static func make(for manager: ManagerRef, outputs: [OutputPlan]) -> JSONProjection? {
        var keys: [String] = []
        for output in outputs {
            if output.chain.isEmpty, let rows = output.rows {
                // Raw records rendered straight into rows: the row rules say which fields are read.
                let all = PipelineRecord.Rules.all(for: rows)
                for path in (all.byManager[manager.index] ?? all.other).paths {
                    guard let first = path.firstKey else { return nil }
                    keys.append(first)
                }
                continue
            }
            if case .plugin(let plugin)? = output.chain.first?.kind {
                guard let fields = plugin.fieldsRead[manager.index] else { return nil }
                keys += fields
                continue
            }
            guard case .mapping(let mapping)? = output.chain.first?.kind,
                let rules = mapping.perManager[manager.index] ?? mapping.shared
            else { return nil }
            for rule in rules {
                switch rule.source {
                case .path(let path):
                    guard let first = path.firstKey else { return nil }
                    keys.append(first)
                case .template(let template):
                    for path in template.paths {
                        guard let first = path.firstKey else { return nil }
                        keys.append(first)
                    }
                case .constant:
                    break
                }
            }
        }
        return JSONProjection(keys: keys)
    }
}
