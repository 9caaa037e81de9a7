/// A table the elements of one list-valued key go to (`child_tables: [labels]` on a table
/// output), as dlt makes nested lists child tables.
///
/// Each element of a record's list is a row: the parent row's key (the output's `key:`), the
/// element's position in the list, and the element's fields as columns (an element that is not an
/// object goes to the column `value`). The element columns are found from the run's records
/// (their types too: int, double, bool, text, or JSON for nested objects and lists), and the
/// table is created, or settled by the output's schema contract, when the parent's rows are all
/// loaded, in the same transaction.
public struct ChildTablePlan: Sendable {
    /// The list-valued key whose elements become rows, as the parent's column would have been.
    public let source: TableColumn
    /// The table's name: the parent's, two underscores, the key's short name (`issues__labels`).
    public let name: String
    /// The parent's key columns, first in each row (the output's `key:`).
    public let parentKey: [TableColumn]

    /// The column holding an element's position in its list (0 for the first).
    public static let positionColumn = "_position"
    /// The column an element that is not an object goes to.
    public static let valueColumn = "value"

    /// The child table of `source` under `parent` (a table named `parent`), linked by `parentKey`.
    init(source: TableColumn, parent: String, parentKey: [TableColumn]) {
        self.source = source
        name = parent + "__" + source.key
        self.parentKey = parentKey
    }

    /// The columns every row has before the element's: the parent's key and the position.
    var leadingColumns: [TableColumn] {
        parentKey + [TableColumn(name: ChildTablePlan.positionColumn, key: ChildTablePlan.positionColumn, type: .int, isKnown: true)]
    }

    /// The table the run loads under `parent`'s table, with the element columns found in its
    /// records: replaced with the parent, else appended to (an upsert first deletes the rows of
    /// each parent it loads), by the parent's contract.
    func table(under parent: TablePlan, elementColumns: [TableColumn]) -> TablePlan {
        var plan = TablePlan(
            engine: parent.engine, database: parent.database, name: name, mode: parent.mode == .replace ? .replace : .append,
            columns: leadingColumns + elementColumns, key: parentKey.map(\.name), contract: parent.contract,
            location: parent.location)
        plan.lookupIndex = parentKey.map(\.name)
        plan.widens = parent.widens
        plan.columnsFromRecords = true
        return plan
    }
}
