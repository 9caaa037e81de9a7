/// What a run loads into a table that is already there, by the output's schema contract
/// (``TablePlan/Contract``): the columns it adds (`evolve`), the columns rows are loaded into with
/// the type each value is converted to, and the pipeline's columns the table lacks and keeps
/// lacking (`discard_row`, `discard_value`).
///
/// Decided the same way for SQLite and PostgreSQL: each engine reads its columns, says which
/// declared types take a column's values as they are (`accepts`) and what type a declared type
/// stands for (``Existing/kind``), and runs the statements.
struct TableSettlement {
    /// A column as the database declares it.
    struct Existing {
        /// Its name.
        let name: String
        /// Its declared type, as the database spells it.
        let type: String
        /// Whether a row must give it a value (`NOT NULL` without a default).
        let required: Bool
        /// The type its declared type stands for; `nil` for one Reform does not make (`uuid`):
        /// values are then loaded as the pipeline's and the database converts them.
        let kind: ColumnType?
    }

    /// Why a table cannot be loaded under its contract, with what to do.
    struct Refusal: Error {
        let message: String
    }

    /// The pipeline's columns to add to the table (`evolve`), in the pipeline's order.
    private(set) var added: [TableColumn] = []
    /// The table's columns to give the pipeline's wider type (`evolve` with `widen: true`), with
    /// the type each had.
    private(set) var widened: [(column: TableColumn, from: String)] = []
    /// The columns rows are loaded into, in the pipeline's order, each with the type its values
    /// are converted to (the table's, where a discarding contract keeps a column the pipeline
    /// types differently).
    private(set) var loaded: [TableColumn] = []
    /// The pipeline's columns the table lacks and keeps lacking: a row's value for one is
    /// dead-lettered (`discard_row`) or left out (`discard_value`).
    private(set) var absent: [TableColumn] = []

    /// The settlement of a table the run just made with `plan`'s columns.
    static func created(_ plan: TablePlan) -> TableSettlement {
        TableSettlement(loaded: plan.columns)
    }

    /// Settles `plan`'s columns with the table's (`existing`, in the table's order). `accepts`
    /// says whether a declared type takes a column's values as they are; `describe` gives the
    /// type a column is created with (for messages); `quotedName` is the table's quoted name.
    static func settle(
        _ plan: TablePlan, existing: [Existing], accepts: (TableColumn, String) -> Bool, describe: (TableColumn) -> String,
        quotedName: String, narrowInteger: (String) -> Bool = { _ in false }
    ) throws(Refusal) -> TableSettlement {
        if plan.columnsFromRecords { return try settleFound(plan, existing: existing, describe: describe, quotedName: quotedName) }
        let columns = existing.map { TableSchemaCheck.Column(name: $0.name, type: $0.type) }
        if plan.contract == .freeze {
            guard TableSchemaCheck.agrees(columns, with: plan, accepts: accepts) else {
                throw Refusal(
                    message: TableSchemaCheck.mismatch(
                        plan, theirs: columns, ours: plan.columns.map { .init(name: $0.name, type: describe($0)) },
                        quotedName: quotedName))
            }
            return TableSettlement(loaded: plan.columns)
        }
        var settlement = TableSettlement()
        var changedTypes: [String] = []
        for column in plan.columns {
            guard let found = existing.first(where: { $0.name == column.name }) else {
                if plan.contract == .evolve {
                    settlement.added.append(column)
                    settlement.loaded.append(column)
                } else if plan.key.contains(column.name) {
                    throw Refusal(
                        message: "table '\(plan.name)' has no column \(column.name), and it is part of the upsert key; "
                            + "schema: \(plan.contract.rawValue) never changes the table: add the column, or set schema: evolve")
                } else {
                    settlement.absent.append(column)
                }
                continue
            }
            if plan.widens, found.kind == .int, column.isKnown, column.type == .int, narrowInteger(found.type) {
                // A 64-bit integer into a narrower integer column: wider, as asked.
                settlement.widened.append((column, found.type))
                settlement.loaded.append(column)
            } else if accepts(column, found.type) || holds(found.kind, column) {
                settlement.loaded.append(column)
            } else if plan.widens, widens(found.kind, to: column) {
                settlement.widened.append((column, found.type))
                settlement.loaded.append(column)
            } else if plan.contract == .evolve {
                changedTypes.append("\(column.name) is \(found.type) in the table, but the pipeline's values are \(describe(column))")
            } else if let kind = found.kind {
                settlement.loaded.append(TableColumn(name: column.name, key: column.key, type: kind, isKnown: true))
            } else {
                settlement.loaded.append(column)
            }
        }
        if !changedTypes.isEmpty {
            throw Refusal(
                message: "table '\(plan.name)': " + changedTypes.joined(separator: "; ")
                    + (plan.widens
                        ? "; widen: true changes a type only to a wider one (integer → bigint → double → text): convert the key "
                        : "; schema: evolve adds columns but never changes a column's type (unless widen: true, to a wider one): "
                            + "convert the key ")
                    + "to the table's type in the reformer, load another table, or rename the column (ALTER TABLE \(quotedName) "
                    + "RENAME COLUMN …) and the run adds the pipeline's")
        }
        if settlement.loaded.isEmpty {
            throw Refusal(
                message: "table '\(plan.name)' has none of the pipeline's columns (\(plan.columns.map(\.name).joined(separator: ", "))), "
                    + "so schema: \(plan.contract.rawValue) would load empty rows; load another table (table: NAME), or set "
                    + "schema: evolve to add the columns")
        }
        try settlement.checkRequired(existing, plan: plan, quotedName: quotedName)
        return settlement
    }

    /// Settles columns found from the run's records (a child table's) with the table's: a column
    /// the table has loads as the table types it (a value that cannot be converted is
    /// dead-lettered, as for a declared type), and columns the records lack load as null, under
    /// every contract. Only a column the table lacks is the contract's: `freeze` refuses it,
    /// `evolve` adds it, a discarding contract leaves its values out (or their rows).
    private static func settleFound(
        _ plan: TablePlan, existing: [Existing], describe: (TableColumn) -> String, quotedName: String
    ) throws(Refusal) -> TableSettlement {
        var settlement = TableSettlement()
        var new: [TableColumn] = []
        for column in plan.columns {
            if let found = existing.first(where: { $0.name == column.name }) {
                if plan.widens, !holds(found.kind, column), widens(found.kind, to: column) {
                    settlement.widened.append((column, found.type))
                    settlement.loaded.append(column)
                    continue
                }
                settlement.loaded.append(
                    found.kind.map { TableColumn(name: column.name, key: column.key, type: $0, isKnown: true) } ?? column)
            } else {
                new.append(column)
            }
        }
        if !new.isEmpty {
            let names = new.map { "\($0.name) (\(describe($0)))" }.joined(separator: ", ")
            switch plan.contract {
            case .evolve:
                settlement.added = new
                settlement.loaded += new
            case .freeze:
                throw Refusal(
                    message: "table '\(plan.name)' has no column\(new.count == 1 ? "" : "s") \(names), which the run's records have; "
                        + "schema: freeze (the default) never changes a table: set schema: evolve to add new columns, or discard_value "
                        + "to load the rows without such values")
            case .discardRow, .discardValue:
                if let leading = new.first(where: { plan.key.contains($0.name) || $0.name == ChildTablePlan.positionColumn }) {
                    throw Refusal(
                        message: "table '\(plan.name)' has no column \(leading.name), which every row of it needs; "
                            + "schema: \(plan.contract.rawValue) never changes the table: add the column, or set schema: evolve")
                }
                settlement.absent = new
            }
        }
        try settlement.checkRequired(existing, plan: plan, quotedName: quotedName)
        return settlement
    }

    /// Refuses a table with a column the pipeline lacks that every row must give a value.
    private func checkRequired(_ existing: [Existing], plan: TablePlan, quotedName: String) throws(Refusal) {
        let required = existing.filter { found in found.required && !plan.columns.contains { $0.name == found.name } }
        if !required.isEmpty {
            let names = required.map(\.name).joined(separator: ", ")
            throw Refusal(
                message: "table '\(plan.name)' has the column\(required.count == 1 ? "" : "s") \(names), NOT NULL without a default, "
                    + "which the pipeline does not have (its rows could not be loaded); give \(required.count == 1 ? "it" : "them") "
                    + "a default or drop NOT NULL (ALTER TABLE \(quotedName) ALTER COLUMN …), or add the key back to the reformer")
        }
    }

    /// Whether `widen: true` may change a column declared as `kind` to `column`'s type: an integer
    /// to a double, a scalar to text.
    private static func widens(_ kind: ColumnType?, to column: TableColumn) -> Bool {
        guard let kind else { return false }
        // A column nothing types takes text as it is and anything else as its JSON text.
        let type = column.isKnown ? column.type : .text
        switch type {
        case .double: return kind == .int
        case .text: return [.int, .double, .bool, .date].contains(kind)
        default: return false
        }
    }

    /// Whether a column declared as `kind` holds the values of `column` as the pipeline makes them
    /// (a wider type: an integer in a double or text column, anything in a JSON column).
    private static func holds(_ kind: ColumnType?, _ column: TableColumn) -> Bool {
        guard let kind else { return false }
        guard column.isKnown else { return kind == .text }
        return ColumnType.fits(column.type, into: kind) || (kind == .text && column.type != .bool)
    }
}
