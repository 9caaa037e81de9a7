/// What SQLite and PostgreSQL outputs say alike when a table already there does not fit the
/// pipeline: the messages name both column lists and how to fix it, and the table is not altered.
enum TableSchemaCheck {
    /// A column as a database declares it: its name and declared type.
    struct Column {
        let name: String
        let type: String
    }

    /// Whether `existing` holds exactly the plan's columns (any order), each with a type that
    /// `accepts(column, declared type)` says fits.
    static func agrees(_ existing: [Column], with plan: TablePlan, accepts: (TableColumn, String) -> Bool) -> Bool {
        guard existing.count == plan.columns.count else { return false }
        return existing.allSatisfy { found in
            plan.columns.first { $0.name == found.name }.map { accepts($0, found.type) } ?? false
        }
    }

    /// The message for a table whose columns disagree: theirs, the pipeline's (`ours`), and
    /// what to do.
    static func mismatch(_ plan: TablePlan, theirs: [Column], ours: [Column], quotedName: String) -> String {
        let list = { (columns: [Column]) in
            columns.map { "\($0.name) \($0.type.isEmpty ? "(no type)" : $0.type)" }.joined(separator: ", ")
        }
        return "table '\(plan.name)' has the columns (\(list(theirs))), but the pipeline's are (\(list(ours))); "
            + "schema: freeze (the default) never changes a table: let the run add the new columns (schema: evolve), "
            + "load another table (table: NAME), or rename or drop this one (DROP TABLE \(quotedName)) and the run creates it"
    }

    /// The message for an upsert into a table without a unique index on the key; `quotedTable` is
    /// the table as SQL, when it is not one quoted name (PostgreSQL's `"analytics"."issues"`).
    static func noUniqueIndex(_ plan: TablePlan, quote: (String) -> String, quotedTable: String? = nil) -> String {
        let bare = plan.engine == .postgres ? TablePlan.schemaAndTable(plan.name)?.table ?? plan.name : plan.name
        let index = quote(bare + "_key")
        return "table '\(plan.name)' has no unique index on (\(plan.key.joined(separator: ", "))), which mode: upsert "
            + "matches rows on; reform never alters a table: add one (CREATE UNIQUE INDEX \(index) ON \(quotedTable ?? quote(plan.name)) "
            + "(\(plan.key.map(quote).joined(separator: ", ")))), or load another table"
    }
}
