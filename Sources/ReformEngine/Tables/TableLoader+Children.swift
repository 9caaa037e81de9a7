import ReformSDK

/// Child tables (``ChildTablePlan``): a loaded row's lists are held while the run goes on, and
/// loaded into their tables after this table's last row, in the run's transaction.
extension TableLoader {
    /// A child row that could not be loaded, for the dead-letter file.
    struct ChildRejection {
        /// The child table's name.
        let table: String
        /// Where the parent's record came from, and the input it was read from (its name).
        let origin: Origin
        let input: String?
        /// Why.
        let error: RecordError
        /// The row as it would have been loaded: parent key, position, the element's fields.
        let row: Value
    }

    /// What was loaded into one child table, for the run's summary.
    struct ChildLoad {
        /// `DATABASE#TABLE`.
        let table: String
        /// Rows loaded.
        let rows: Int
        /// The columns `schema: evolve` added to it, with their declared types.
        let added: [(name: String, type: String)]
        /// The columns `widen: true` gave a wider type: name, old type, new type.
        let widened: [(name: String, from: String, to: String)]
        /// Values `schema: discard_value` left out of its rows.
        let discardedValues: Int
    }

    /// Holds the rows `lists` (one list per child table, in order) make for the loaded row of
    /// `object`, from `origin` read at `input`.
    func holdChildRows(_ lists: [[Value]], of object: Object, origin: Origin, input: String?) throws(OutputError) {
        let key = children.first?.plan.parentKey.map { object[$0.name] ?? .null } ?? []
        for (child, elements) in zip(children, lists) {
            do throws(SpillError) {
                try child.hold(
                    ordinal: ordinal, key: key, elements: elements, origin: origin, input: input)
            } catch {
                throw OutputError(path: displayName, message: error.message)
            }
        }
    }

    /// Loads each child table's held rows, after this table's rows are all handed on (after
    /// ``finish()``, with the refused rows taken): creates or settles the table by the output's
    /// contract with the element columns found, leaves out the rows of parents the database
    /// refused, and for an upsert deletes each loaded parent's old rows first (the last record of
    /// a key gives its rows). Rows that cannot be loaded go to `deadLetter`.
    func loadChildren(deadLetter: (ChildRejection) throws(OutputError) -> Void) throws(OutputError) -> [ChildLoad] {
        var loads: [ChildLoad] = []
        for rows in children {
            let child = rows.plan
            // A run with no rows for a table that is not there yet leaves it to a run that has
            // some: made now, it would have no element columns, which a frozen table never adds.
            if rows.elementCount == 0, try !hasTable(child.name) { continue }
            let table = child.table(under: plan, elementColumns: try elementColumns(of: rows))
            let loader = try TableLoader(table, pipeline: pipelineName, database: database, transactions: transactions)
            // The number of the row that gives each key its rows: the last one loaded.
            var lastOfKey: [[Value]: Int] = [:]
            if plan.mode == .upsert {
                try rows.readEach { entry throws(OutputError) in
                    guard !refusedOrdinals.contains(entry.ordinal) else { return }
                    lastOfKey[identity(of: entry.key, in: child)] = entry.ordinal
                }
                try loader.deleteRows(keyedBy: Array(lastOfKey.keys))
            }
            var loaded = 0
            try rows.readEach { entry throws(OutputError) in
                guard !refusedOrdinals.contains(entry.ordinal),
                    plan.mode != .upsert || lastOfKey[identity(of: entry.key, in: child)] == entry.ordinal
                else {
                    return
                }
                for (position, element) in entry.elements.enumerated() {
                    let row = TableLoader.childRow(key: entry.key, of: child, position: position, element: element)
                    if let rejection = try loader.write(row, origin: entry.origin, input: entry.input) {
                        try deadLetter(
                            ChildRejection(
                                table: child.name, origin: entry.origin, input: entry.input,
                                error: rejection, row: row))
                    } else {
                        loaded += 1
                    }
                }
            }
            try loader.finish()
            for refused in loader.takeRefused() {
                loaded -= 1
                try deadLetter(
                    ChildRejection(
                        table: child.name, origin: refused.origin, input: refused.input, error: refused.error, row: refused.record))
            }
            try loader.logLoad(rows: loaded)
            loads.append(
                ChildLoad(
                    table: loader.displayName, rows: loaded, added: loader.added.map { ($0.name, loader.declaredType(of: $0)) },
                    widened: loader.widened.map { ($0.column.name, $0.from, loader.declaredType(of: $0.column)) },
                    discardedValues: loader.discardedValues))
        }
        return loads
    }

    /// A parent key as its columns hold it (`"7"` and `7` are one key of an integer column), so
    /// that the last record of each key is found as the table sees keys.
    private func identity(of key: [Value], in child: ChildTablePlan) -> [Value] {
        zip(key, child.parentKey).map { value, column in (try? TableLoader.converted(value, in: column, table: child.name)) ?? value }
    }

    /// The element columns `rows` found, checked against the columns every row has before them
    /// (the parent key, the position) and, on PostgreSQL, against its longest name.
    private func elementColumns(of rows: ChildTableRows) throws(OutputError) -> [TableColumn] {
        let columns = rows.columns.tableColumns
        let leading = rows.plan.leadingColumns.map(\.name)
        // SQLite's names are the same in any case; PostgreSQL's quoted ones are not.
        let fold: (String) -> String = plan.engine == .sqlite ? { $0.lowercased() } : { $0 }
        var seen: [String: String] = [:]
        for name in leading + columns.map(\.name) {
            if name.isEmpty {
                throw OutputError(
                    path: displayName,
                    message: "the elements of '\(rows.plan.source.key)' have a field with an empty name, which cannot be a column of "
                        + "child table '\(rows.plan.name)'; rename the field in a reformer before the list goes to the child table")
            }
            if let other = seen[fold(name)] {
                throw OutputError(
                    path: displayName,
                    message: "the elements of '\(rows.plan.source.key)' have the field '\(name)', but child table '\(rows.plan.name)' "
                        + "already has the column '\(other)'"
                        + (leading.contains(other)
                            ? " (its parent key and position come first)" : " (a table's names differ in more than case)")
                        + "; rename the field in a reformer before the list goes to the child table")
            }
            seen[fold(name)] = name
            if plan.engine == .postgres, name.utf8.count > PipelineDecoder.postgresNameBytes {
                throw OutputError(
                    path: displayName,
                    message: "the elements of '\(rows.plan.source.key)' have the field '\(name)', \(name.utf8.count) bytes long, but "
                        + "PostgreSQL keeps only the first \(PipelineDecoder.postgresNameBytes) bytes of a column's name; "
                        + "rename the field in a reformer before the list goes to the child table")
            }
        }
        return columns
    }

    /// One row of `child`: the parent's key, the position, and the element's fields (an element
    /// that is not an object as `value`).
    static func childRow(key: [Value], of child: ChildTablePlan, position: Int, element: Value) -> Value {
        var row = Object(minimumCapacity: child.parentKey.count + 1 + (element.objectValue?.count ?? 1))
        for (column, value) in zip(child.parentKey, key) { row.appendNew(key: column.name, value: value) }
        row.appendNew(key: ChildTablePlan.positionColumn, value: .int(position))
        if case .object(let fields) = element {
            for member in fields.members { row.appendNew(key: member.key, value: member.value) }
        } else {
            row.appendNew(key: ChildTablePlan.valueColumn, value: element)
        }
        return .object(row)
    }
}
