import ReformSDK
import ReformYAML

/// The `rows:` section: row shapes, each manager's rules for filling one, value formats and styles.
///
/// ```yaml
/// rows:
///   reminder:
///     columns: [date, label]
///     sort: date
///     format: { date: { date: "M月D日" } }
///     from:
///       events:    { columns: { label: eventTitle }, style: highlight }
///       festivals: { columns: { label: festivalName } }
/// ```
extension PipelineDecoder {
    static let rowsKeys = PipelineSchema.rowShape.keyNames
    static let rowsManagerKeys = PipelineSchema.rowsManager.keyNames

    func decodeRows(_ node: YAMLNode, managers: [ManagerPlan]) -> [String: RowsPlan] {
        var plans: [String: RowsPlan] = [:]
        for entry in namedEntries(node, "rows") {
            let what = "row shape '\(entry.key)'"
            guard let m = context.mapping(entry.value, what, allowed: PipelineDecoder.rowsKeys) else { continue }
            var columns: [RowsPlan.Column] = []
            if let c = context.requireKey("columns", in: m, what) {
                if case .mapping = c.content, let cm = context.mapping(c, "'columns' of \(what)", allowed: nil) {
                    for e in cm.entries {
                        if let key = context.string(e.value, "column '\(e.key)' of \(what)") {
                            columns.append(.init(header: e.key, key: key, format: nil))
                        }
                    }
                } else if let names = context.stringList(c, "'columns' of \(what)") {
                    columns = names.map { .init(header: $0, key: $0, format: nil) }
                }
            }
            let headers = columns.map(\.header)
            if let f = m["format"] {
                let formats = decodeColumnFormats(f, headers: headers, "'format' of \(what)")
                columns = columns.enumerated().map { i, c in .init(header: c.header, key: c.key, format: formats[i]) }
            }
            let (sortColumn, descending) = decodeRowSort(m["sort"], columns: columns, what)
            var rules: [Int: RowsPlan.ManagerRules] = [:]
            if let s = m["style"], let sm = context.mapping(s, "'style' of \(what)", allowed: nil) {
                for e in sm.entries {
                    guard let index = managerIndex(e, managers) else { continue }
                    rules[index] = RowsPlan.ManagerRules(
                        sources: headers.map { _ in nil }, formats: headers.map { _ in nil }, style: rowStyle(e.value) ?? .plain)
                }
            }
            if let f = m["from"], let fm = context.mapping(f, "'from' of \(what)", allowed: nil) {
                for e in fm.entries {
                    guard let index = managerIndex(e, managers) else { continue }
                    if rules[index] != nil {
                        context.error(
                            "manager '\(e.key)' has a style in 'style' and rules in 'from' of \(what); keep one", at: e.keyLocation)
                    }
                    rules[index] = decodeManagerRows(e, headers: headers, what)
                }
            }
            var plan = RowsPlan(
                name: entry.key, columns: columns, sortColumn: sortColumn, descending: descending, managers: rules,
                location: entry.keyLocation)
            if let node = m["style_when"], let sm = context.mapping(node, "'style_when' of \(what)", allowed: nil) {
                for e in sm.entries {
                    do {
                        let condition = try Condition(parsing: e.key)
                        if let style = rowStyle(e.value) { plan.styleWhen.append((condition, style)) }
                    } catch {
                        context.error(
                            "condition '\(e.key)' in 'style_when' of \(what): \(error.message)",
                            at: SourceLocation(line: e.keyLocation.line, column: e.keyLocation.column + error.column - 1))
                    }
                }
            }
            plans[entry.key] = plan
        }
        return plans
    }

    /// The shape with its columns' keys and the managers' source paths resolved against the keys
    /// the chain of an output ends with (`nil`: raw records, names are paths as written).
    func resolveRows(
        _ rows: RowsPlan, keys: KeySet?, managers refs: [ManagerRef], at location: SourceLocation, _ what: String
    ) -> RowsPlan {
        func resolve(_ name: String) -> String {
            guard let keys else { return name }
            if let key = keys.key(named: name) { return key.constant }
            context.error(
                "row shape '\(rows.name)' uses '\(name)', which the chain of \(what) does not emit"
                    + Suggestions.hint(for: name, in: keys.keys.map(\.name))
                    + "; it emits: \(keys.keys.map(\.name).joined(separator: ", "))",
                at: location)
            return name
        }
        func resolve(_ path: ValuePath?) -> ValuePath? {
            guard let path, keys != nil, case .key(let first)? = path.components.first else { return path }
            return ValuePath([.key(resolve(first))] + path.components.dropFirst())
        }
        var managers: [Int: RowsPlan.ManagerRules] = [:]
        for (index, rules) in rows.managers {
            managers[index] = RowsPlan.ManagerRules(sources: rules.sources.map(resolve), formats: rules.formats, style: rules.style)
        }
        // A column's own key is only read for managers whose rules do not say where it comes from.
        let columns = rows.columns.enumerated().map { i, column in
            let read = refs.contains { managers[$0.index]?.sources[i] == nil }
            return RowsPlan.Column(header: column.header, key: read ? resolve(column.key) : column.key, format: column.format)
        }
        var resolved = RowsPlan(
            name: rows.name, columns: columns,
            sortColumn: rows.sortColumn, descending: rows.descending, managers: managers, location: rows.location)
        resolved.styleWhen = rows.styleWhen.map { condition, style in
            (condition.renamingFirstKeys { name in keys.flatMap { $0.key(named: name)?.constant } }, style)
        }
        return resolved
    }

    private func managerIndex(_ entry: Mapping.Entry, _ managers: [ManagerPlan]) -> Int? {
        guard let manager = managers.first(where: { $0.ref.name == entry.key }) else {
            unknownReference("manager", entry.key, known: managers.map(\.ref.name), at: entry.keyLocation)
            return nil
        }
        return manager.ref.index
    }

    /// `sort: date` or `sort: { by: date, order: desc }`, naming a column (by heading or key).
    private func decodeRowSort(_ node: YAMLNode?, columns: [RowsPlan.Column], _ what: String) -> (Int?, Bool) {
        guard let node else { return (nil, false) }
        var nameNode: YAMLNode? = node
        var descending = false
        if case .mapping = node.content {
            guard let sm = context.mapping(node, "'sort' of \(what)", allowed: PipelineSchema.sortOptions.keyNames) else {
                return (nil, false)
            }
            nameNode = context.requireKey("by", in: sm, "'sort' of \(what)")
            if let o = sm["order"], let text = context.string(o, what) {
                if text != "asc" && text != "desc" {
                    context.error("'order' of \(what) must be 'asc' or 'desc', not '\(text)'", at: o.location)
                }
                descending = text == "desc"
            }
        }
        guard let nameNode, let name = context.string(nameNode, "'sort' of \(what)") else { return (nil, descending) }
        guard let index = columns.firstIndex(where: { $0.header == name }) ?? columns.firstIndex(where: { $0.key == name }) else {
            context.error(
                "\(what) sorts by '\(name)', which is none of its columns" + Suggestions.hint(for: name, in: columns.map(\.header))
                    + " (columns: \(columns.map(\.header).joined(separator: ", ")))",
                at: nameNode.location)
            return (nil, descending)
        }
        return (index, descending)
    }

    /// One manager's entry under `from`: `{ columns: { column: path }, style: …, format: { column: … } }`.
    private func decodeManagerRows(_ entry: Mapping.Entry, headers: [String], _ what: String) -> RowsPlan.ManagerRules {
        let label = "'from.\(entry.key)' of \(what)"
        var sources: [ValuePath?] = headers.map { _ in nil }
        var formats: [ValueFormat?] = headers.map { _ in nil }
        var style = RowStyle.plain
        guard let m = context.mapping(entry.value, label, allowed: PipelineDecoder.rowsManagerKeys) else {
            return RowsPlan.ManagerRules(sources: sources, formats: formats, style: style)
        }
        if let c = m["columns"], let cm = context.mapping(c, "'columns' of \(label)", allowed: nil) {
            for e in cm.entries {
                guard let index = columnIndex(e, headers: headers, label) else { continue }
                sources[index] = context.path(e.value, "column '\(e.key)' of \(label)")
            }
        }
        if let f = m["format"] { formats = decodeColumnFormats(f, headers: headers, "'format' of \(label)") }
        if let s = m["style"] { style = rowStyle(s) ?? .plain }
        return RowsPlan.ManagerRules(sources: sources, formats: formats, style: style)
    }

    private func columnIndex(_ entry: Mapping.Entry, headers: [String], _ what: String) -> Int? {
        if let index = headers.firstIndex(of: entry.key) { return index }
        context.error(
            "\(what) names column '\(entry.key)', which the row shape does not have" + Suggestions.hint(for: entry.key, in: headers)
                + " (columns: \(headers.joined(separator: ", ")))",
            at: entry.keyLocation)
        return nil
    }

    /// `{ column: { date: "M月D日" }, other: { number: "#,##0.00" } }`, by column position.
    private func decodeColumnFormats(_ node: YAMLNode, headers: [String], _ what: String) -> [ValueFormat?] {
        var formats: [ValueFormat?] = headers.map { _ in nil }
        guard let m = context.mapping(node, what, allowed: nil) else { return formats }
        for e in m.entries {
            guard let index = columnIndex(e, headers: headers, what) else { continue }
            formats[index] = valueFormat(e.value, "column '\(e.key)' in \(what)")
        }
        return formats
    }

    /// `{ date: PATTERN }` or `{ number: PATTERN }`.
    private func valueFormat(_ node: YAMLNode, _ what: String) -> ValueFormat? {
        guard let m = context.mapping(node, what, allowed: PipelineSchema.valueFormat.keyNames) else { return nil }
        guard m.entries.count == 1, let entry = m.entries.first else {
            context.error("the format of \(what) must be one of { date: PATTERN } or { number: PATTERN }", at: node.location)
            return nil
        }
        guard let text = context.string(entry.value, what) else { return nil }
        if entry.key == "date" {
            let pattern = DatePattern(text)
            if !pattern.hasFields {
                context.error(
                    "date pattern '\(text)' for \(what) has no date fields (YYYY, MM, M, DD, D, HH, mm, ss)", at: entry.value.location)
            }
            return .date(pattern)
        }
        guard let pattern = NumberPattern(text) else {
            context.error("number pattern '\(text)' for \(what) needs digits such as '0', '#,##0' or '0.00'", at: entry.value.location)
            return nil
        }
        return .number(pattern)
    }

    /// `highlight`, `red`, or `[bold, red]`: an emphasis, a colour, or one of each.
    private func rowStyle(_ node: YAMLNode) -> RowStyle? {
        guard let words = context.stringList(node, "row style") else { return nil }
        if let style = RowStyle(words: words) { return style }
        let unknown = words.first { !RowStyle.words.contains($0) }
        if let unknown {
            context.error(
                "unknown row style '\(unknown)'" + Suggestions.hint(for: unknown, in: RowStyle.words)
                    + " (expected an emphasis: highlight, dim, bold; or a colour: "
                    + RowStyle.Colour.allCases.map(\.rawValue).joined(separator: ", ") + ")",
                at: node.location)
        } else {
            context.error("row style '\(words.joined(separator: ", "))' sets the emphasis or the colour twice", at: node.location)
        }
        return nil
    }
}
