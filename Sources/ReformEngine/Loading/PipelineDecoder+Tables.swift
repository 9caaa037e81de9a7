import ReformSDK
import ReformYAML

/// `{ sqlite: PATH, table: NAME, mode: replace | append | upsert, key: [...], types: {...}, schema: freeze | evolve | … }`, or
/// `postgres: URL` instead of `sqlite:`: an output that loads its chain's keyed records into an
/// SQL table.
extension PipelineDecoder {
    /// The keys of a table output, besides the chain's `reform`.
    static let tableOutputKeys = PipelineSchema.tableKeys.map(\.name)

    /// How many bytes of a name PostgreSQL keeps (`NAMEDATALEN - 1`): it cuts longer ones silently.
    static let postgresNameBytes = 63

    /// The table `settings` declares, checked against the chain's keys (its columns) and what the
    /// chain makes of each key (their types); `nil` with errors when it cannot be loaded.
    func decodeTable(
        _ settings: Mapping, chain: [ReformerPlan], keys: KeySet?, managers: [ManagerRef], _ what: String
    ) -> TablePlan? {
        let engine: TablePlan.Engine
        let databaseNode: YAMLNode
        switch (settings["sqlite"], settings["postgres"]) {
        case (let node?, nil):
            (engine, databaseNode) = (.sqlite, node)
        case (nil, let node?):
            (engine, databaseNode) = (.postgres, node)
        case (_?, _?):
            context.error(
                "an output of \(what) has both 'sqlite' and 'postgres'; an output loads one table: declare two outputs",
                at: settings.entry("postgres")?.keyLocation ?? settings.node.location)
            return nil
        case (nil, nil):
            return nil
        }
        let output = "the \(engine.rawValue) output of \(what)"
        for other in ["rows", "format", "path", "escape_formulas"] {
            if let entry = settings.entry(other) {
                context.error(
                    "'\(other)' does not apply to \(output): it writes rows into a table (its columns are the chain's keys); "
                        + "declare a separate output for a file",
                    at: entry.keyLocation)
            }
        }
        let database: String?
        switch engine {
        case .sqlite:
            database = context.string(databaseNode, "'sqlite' of \(what)").flatMap { path -> String? in
                guard !path.isEmpty else {
                    context.error(
                        "'sqlite' of \(what) must be the database file's path, as in sqlite: out/listings.db", at: databaseNode.location)
                    return nil
                }
                if let problem = SQLitePath.problem(path) {
                    context.error(
                        "'sqlite' of \(what) is '\(path)', \(problem); give the database file's path, as in sqlite: out/listings.db",
                        at: databaseNode.location)
                    return nil
                }
                return checkedOutputPath(path, what, at: databaseNode.location)
            }
        case .postgres:
            // Kept as written: `${VAR}` references (the password) are resolved when the run connects.
            database = context.template(databaseNode, "'postgres' of \(what)").flatMap { url -> String? in
                guard !url.description.isEmpty else {
                    context.error(
                        "'postgres' of \(what) must be the server's URL, as in postgres: postgres://reform:${PGPASSWORD}@localhost/reform",
                        at: databaseNode.location)
                    return nil
                }
                return url.description
            }
        }
        var tableName: String?
        if let node = context.requireKey("table", in: settings, output), let name = context.string(node, "'table' of \(what)") {
            // On PostgreSQL `analytics.issues` is the table issues of the schema analytics.
            let qualified = engine == .postgres ? TablePlan.schemaAndTable(name) : nil
            let bareName = qualified?.table ?? name
            let bare = bareName.lowercased()
            if let qualified, qualified.schema.isEmpty || qualified.table.isEmpty || qualified.table.contains(".") {
                context.error(
                    "'table' of \(what) is '\(name)'; a PostgreSQL table in a schema is written SCHEMA.TABLE, as in analytics.issues",
                    at: node.location)
            } else if let qualified, qualified.schema.utf8.count > PipelineDecoder.postgresNameBytes {
                context.error(
                    "'table' of \(what) names the schema '\(qualified.schema)', \(qualified.schema.utf8.count) bytes long, but PostgreSQL "
                        + "keeps only the first \(PipelineDecoder.postgresNameBytes) bytes of a name; give a shorter one",
                    at: node.location)
            } else if bare.isEmpty || bare.hasPrefix("sqlite_") || bare.hasPrefix("pg_") || bare.hasPrefix("_reform_") {
                context.error(
                    "'table' of \(what) must be a table name, and names starting with sqlite_, pg_ or _reform_ belong to SQLite, "
                        + "PostgreSQL and Reform; give one such as listings",
                    at: node.location)
            } else if engine == .postgres, bareName.utf8.count > PipelineDecoder.postgresNameBytes {
                context.error(
                    "'table' of \(what) is \(bareName.utf8.count) bytes long, but PostgreSQL keeps only the first "
                        + "\(PipelineDecoder.postgresNameBytes) bytes of a name (tables alike in those would be one); give a shorter name",
                    at: node.location)
            } else {
                tableName = name
            }
        }
        let mode = settings["mode"].flatMap { context.choice($0, "table mode", as: TablePlan.Mode.self) } ?? .replace
        let contract = settings["schema"].flatMap { context.choice($0, "schema contract", as: TablePlan.Contract.self) } ?? .freeze
        guard let keys else {
            let last = chain.last.map { "its last reformer, '\($0.name)', declares none" } ?? "it has no 'reform' chain"
            context.error(
                "\(output) needs records with declared keys (the table's columns), but \(last); "
                    + "end the chain with a reformer that declares 'keys:'",
                at: databaseNode.location)
            return nil
        }
        let inferred = inferredTypes(chain: chain, keys: keys, managers: managers)
        var declared: [String: ColumnType] = [:]
        if let typesNode = settings["types"], let types = context.mapping(typesNode, "'types' of \(what)", allowed: nil) {
            for entry in types.entries {
                guard let key = keys.key(named: entry.key) else {
                    context.error(
                        "'types' of \(what) names '\(entry.key)', which is not one of the chain's keys"
                            + Suggestions.hint(for: entry.key, in: keys.keys.map(\.name))
                            + " (its keys: \(keys.keys.map(\.name).joined(separator: ", ")))",
                        at: entry.keyLocation)
                    continue
                }
                guard let type = context.choice(entry.value, "column type", as: ColumnType.self) else { continue }
                if let made = inferred[key.constant], !ColumnType.fits(made.type, into: type) {
                    context.error(
                        "'\(key.name)' is declared \(type.rawValue) in 'types' of \(what), but \(made.source) makes it "
                            + "\(made.type.rawValue); declare it \(made.type.rawValue), or convert it in the reformer (convert: \(type.conversionName))",
                        at: entry.value.location)
                    continue
                }
                declared[key.constant] = type
            }
        }
        var conflicts: [String] = []
        let columns = keys.keys.map { key -> TableColumn in
            if let type = declared[key.constant] { return TableColumn(name: key.constant, key: key.name, type: type, isKnown: true) }
            if let made = inferred[key.constant] {
                if let other = made.conflict {
                    conflicts.append(
                        "'\(key.name)' is \(made.type.rawValue) from \(made.source) but \(other.type.rawValue) from \(other.source)")
                }
                return TableColumn(name: key.constant, key: key.name, type: made.type, isKnown: true)
            }
            return TableColumn(name: key.constant, key: key.name, type: .text, isKnown: false)
        }
        if engine == .postgres {
            for column in columns where column.name.utf8.count > PipelineDecoder.postgresNameBytes {
                context.error(
                    "\(output) has column '\(column.name)' (the constant of key '\(column.key)'), \(column.name.utf8.count) bytes long, "
                        + "but PostgreSQL keeps only the first \(PipelineDecoder.postgresNameBytes) bytes of a name; "
                        + "give the key a shorter constant",
                    at: databaseNode.location)
            }
        }
        for conflict in conflicts {
            context.error(
                "\(output): \(conflict), and a column has one type; convert both the same way, or declare the column in 'types'",
                at: settings["types"]?.location ?? databaseNode.location)
        }
        var keyColumns: [String] = []
        if let keyNode = settings["key"] {
            if mode != .upsert && settings["child_tables"] == nil {
                context.error(
                    "'key' of \(what) is for mode: upsert (the rows it matches are updated) or child_tables (the parent key their "
                        + "rows carry); remove it, or set mode: upsert",
                    at: settings.entry("key")?.keyLocation ?? keyNode.location)
            }
            let items: [YAMLNode]
            if case .sequence(let s) = keyNode.content { items = s } else { items = [keyNode] }
            for item in items {
                guard let name = context.string(item, "'key' of \(what)") else { continue }
                guard let key = keys.key(named: name) else {
                    context.error(
                        "'key' of \(what) names '\(name)', which is not one of the chain's keys"
                            + Suggestions.hint(for: name, in: keys.keys.map(\.name))
                            + " (its keys: \(keys.keys.map(\.name).joined(separator: ", ")))",
                        at: item.location)
                    continue
                }
                if keyColumns.contains(key.constant) {
                    context.error("'key' of \(what) names '\(name)' twice", at: item.location)
                    continue
                }
                keyColumns.append(key.constant)
            }
            if items.isEmpty {
                context.error("'key' of \(what) must name at least one of the chain's keys, as in key: [id]", at: keyNode.location)
            }
        } else if mode == .upsert {
            context.error(
                "\(output) has mode: upsert, which needs 'key': the keys that identify a row, as in key: [\(keys.keys.first?.name ?? "id")]",
                at: settings["mode"]?.location ?? databaseNode.location)
        }
        guard let database, let tableName else { return nil }
        let children = childTables(settings, columns: columns, parentKey: keyColumns, table: tableName, engine: engine, what)
        let childKeys = Set(children.map(\.source.name))
        var plan = TablePlan(
            engine: engine, database: database, name: tableName, mode: mode, columns: columns.filter { !childKeys.contains($0.name) },
            key: mode == .upsert ? keyColumns : [], contract: contract, location: settings.node.location)
        plan.children = children
        if let entry = settings.entry("widen"), let widens = context.bool(entry.value, "'widen' of \(what)") {
            if widens && contract != .evolve {
                context.error(
                    "'widen' of \(what) is for schema: evolve, which may change the table; set schema: evolve, or remove widen",
                    at: entry.keyLocation)
            }
            plan.widens = widens
        }
        return plan
    }

    /// The child tables `child_tables:` declares: `true` for every column typed `json`, or a list
    /// of keys. Each needs the output's `key:` (the parent key each row carries), a key that is
    /// not part of it, and a key the chain does not type as a scalar.
    private func childTables(
        _ settings: Mapping, columns: [TableColumn], parentKey: [String], table: String, engine: TablePlan.Engine, _ what: String
    ) -> [ChildTablePlan] {
        guard let entry = settings.entry("child_tables") else { return [] }
        let node = entry.value
        var chosen: [(column: TableColumn, location: SourceLocation)] = []
        if case .scalar = node.content, let all = context.bool(node, "'child_tables' of \(what)") {
            guard all else { return [] }
            chosen = columns.filter { $0.isKnown && $0.type == .json }.map { ($0, node.location) }
            if chosen.isEmpty {
                context.error(
                    "'child_tables: true' of \(what) takes every key typed json (a list), but none is; name the keys, as in "
                        + "child_tables: [labels], or declare their type in 'types' (labels: json)",
                    at: node.location)
                return []
            }
        } else {
            let items: [YAMLNode]
            if case .sequence(let s) = node.content { items = s } else { items = [node] }
            for item in items {
                guard let name = context.string(item, "each entry of 'child_tables' of \(what)") else { continue }
                guard let column = columns.first(where: { $0.key == name || $0.name == name }) else {
                    context.error(
                        "'child_tables' of \(what) names '\(name)', which is not one of the chain's keys"
                            + Suggestions.hint(for: name, in: columns.map(\.key))
                            + " (its keys: \(columns.map(\.key).joined(separator: ", ")))",
                        at: item.location)
                    continue
                }
                if chosen.contains(where: { $0.column.name == column.name }) {
                    context.error("'child_tables' of \(what) names '\(name)' twice", at: item.location)
                    continue
                }
                if column.isKnown && column.type != .json {
                    context.error(
                        "'child_tables' of \(what) names '\(column.key)', but the chain makes it \(column.type.rawValue), not a list; "
                            + "a child table takes a list's elements (a mapping rule's array: list, the default for a path with [])",
                        at: item.location)
                    continue
                }
                chosen.append((column, item.location))
            }
        }
        guard !chosen.isEmpty else { return [] }
        guard !parentKey.isEmpty else {
            context.error(
                "'child_tables' of \(what) needs 'key': the keys that identify a row of '\(table)', which each child row carries "
                    + "(as in key: [\(columns.first?.key ?? "id")])",
                at: entry.keyLocation)
            return []
        }
        let keyColumns = parentKey.compactMap { name in columns.first { $0.name == name } }
        var children: [ChildTablePlan] = []
        for (column, location) in chosen {
            if parentKey.contains(column.name) {
                context.error(
                    "'child_tables' of \(what) names '\(column.key)', which is part of 'key'; a parent's key stays in its row",
                    at: location)
                continue
            }
            let child = ChildTablePlan(source: column, parent: table, parentKey: keyColumns)
            let bare = engine == .postgres ? TablePlan.schemaAndTable(child.name)?.table ?? child.name : child.name
            if engine == .postgres, bare.utf8.count > PipelineDecoder.postgresNameBytes {
                context.error(
                    "the child table of '\(column.key)' of \(what) would be '\(bare)', \(bare.utf8.count) bytes long, but PostgreSQL "
                        + "keeps only the first \(PipelineDecoder.postgresNameBytes) bytes of a name; give the table a shorter name",
                    at: location)
                continue
            }
            children.append(child)
        }
        return children
    }

    /// What the chain is known to make of each key (by constant), from its last reformer that
    /// sets keys: a mapping rule's `convert`, array reduction, template or constant, and a steps
    /// reformer's `convert` and `set` steps. Keys nothing says anything about are left out.
    private func inferredTypes(chain: [ReformerPlan], keys: KeySet, managers: [ManagerRef]) -> [String: InferredType] {
        var types: [String: InferredType] = [:]
        for reformer in chain {
            switch reformer.kind {
            case .mapping(let mapping):
                // Each manager's rule for a key says what it makes, or nothing (a plain path);
                // the column takes the widest of what they say.
                var made: [String: [(type: ColumnType, source: String)]] = [:]
                for manager in managers {
                    for rule in mapping.perManager[manager.index] ?? mapping.shared ?? [] {
                        guard let type = ColumnType.made(by: rule) else { continue }
                        made[rule.constant, default: []].append((type, "reformer '\(reformer.name)' (for manager '\(manager.name)')"))
                    }
                }
                types = [:]
                for (constant, list) in made {
                    guard var known = list.first.map({ InferredType(type: $0.type, source: $0.source) }) else { continue }
                    for other in list.dropFirst() where !ColumnType.fits(other.type, into: known.type) {
                        if ColumnType.fits(known.type, into: other.type) {
                            known = InferredType(type: other.type, source: other.source)
                        } else if known.conflict == nil {
                            known.conflict = other
                        }
                    }
                    types[constant] = known
                }
            case .steps(let steps):
                for step in steps {
                    let source = "step '\(step.name)' of reformer '\(reformer.name)'"
                    guard case .component(let component) = step.kind else { continue }
                    switch component.step.columnTypes {
                    case .keeps:
                        continue
                    case .forgets:
                        types = [:]
                    case .sets(let set):
                        for (key, type) in set { types[key] = InferredType(type: type, source: source) }
                    case .renames(let pairs):
                        var renamed = types
                        for (from, to) in pairs {
                            renamed[from] = nil
                            renamed[to] = types[from]
                        }
                        types = renamed
                    }
                }
            case .plugin:
                types = [:]
            }
        }
        let constants = Set(keys.constants)
        return types.filter { constants.contains($0.key) }
    }
}

/// What the chain makes of one key, and from where (for messages).
private struct InferredType {
    var type: ColumnType
    var source: String
    /// Another type another manager's rule makes of the same key.
    var conflict: (type: ColumnType, source: String)? = nil
}

extension ColumnType {
    /// The type a conversion makes.
    init(_ conversion: Conversion) {
        switch conversion {
        case .int: self = .int
        case .double: self = .double
        case .bool: self = .bool
        case .string: self = .text
        case .date: self = .date
        }
    }

    /// The `convert:` name that makes this type.
    var conversionName: String {
        switch self {
        case .int: "int"
        case .double: "double"
        case .bool: "bool"
        case .text, .json: "string"
        case .date: "date"
        }
    }

    /// Whether values of type `made` can be stored in a column of type `column` as they are.
    static func fits(_ made: ColumnType, into column: ColumnType) -> Bool {
        made == column || column == .json || (made == .int && column == .double) || (made == .date && column == .text)
    }

    /// What a mapping rule is known to make, when its conversion, array reduction, template or
    /// constant says.
    static func made(by rule: FieldRule) -> ColumnType? {
        if let conversion = rule.conversion { return ColumnType(conversion) }
        if let array = rule.array {
            switch array.reduction {
            case .list: return .json
            case .count: return .int
            case .join: return .text
            case .first, .last: return nil
            }
        }
        switch rule.source {
        case .template: return .text
        case .path: return nil
        case .constant(let value):
            switch value {
            case .int: return .int
            case .double: return .double
            case .bool: return .bool
            case .string: return .text
            case .array, .object: return .json
            case .null: return nil
            }
        }
    }
}
