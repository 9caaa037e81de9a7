public import ReformYAML

/// An SQL table an output loads its records into (`{ sqlite: PATH, table: NAME, mode, key, types }`,
/// or `{ postgres: URL, … }`).
///
/// The columns are the chain's declared keys in declared order, named by their constants (the
/// names consumers of every other output read), each with a type declared in `types:` or
/// inferred from the chain. Checked when the pipeline is loaded; the table itself is checked
/// (or created) when the run starts.
public struct TablePlan: Sendable {
    /// What a run does with the rows the table already holds.
    public enum Mode: String, Sendable, CaseIterable {
        /// Delete them, in the same transaction as the new rows (the table is the run's records).
        case replace
        /// Keep them and insert the new rows after them.
        case append
        /// Insert new rows, update the row with the same `key` (one row per key).
        case upsert
    }

    /// What a run does when the table already there differs from the pipeline's columns (a key
    /// added to the reformer, one removed, a type changed): `schema:` of the output.
    public enum Contract: String, Sendable, CaseIterable {
        /// Stop before loading anything, saying how they differ (the default: no table changes
        /// unasked).
        case freeze
        /// Add the pipeline's new columns (nullable) in the run's transaction, logged in
        /// `_reform_schema_log`; columns the pipeline no longer has are kept and get nulls.
        case evolve
        /// Keep the table as it is: a row with a value for a column the table lacks, or a value
        /// its column's type cannot hold, goes to the dead-letter file with the reason.
        case discardRow = "discard_row"
        /// Keep the table as it is: such a value is left out (null), the row loads, and the run's
        /// summary counts the values left out.
        case discardValue = "discard_value"
    }

    /// The database system that holds the table.
    public enum Engine: String, Sendable, CaseIterable {
        /// An SQLite database file (the system `libsqlite3`).
        case sqlite
        /// A PostgreSQL server (the system `libpq`), loaded with the COPY protocol.
        case postgres
    }

    /// SQLite or PostgreSQL.
    public let engine: Engine
    /// For SQLite, the database file, relative to the working folder (confined to it like other
    /// output paths); for PostgreSQL, the connection URL as written, its `${VAR}` references
    /// unresolved until the run (so that no secret sits in the plan).
    public let database: String
    /// The table's name.
    public let name: String
    /// Replace, append or upsert.
    public let mode: Mode
    /// The columns in order.
    public let columns: [TableColumn]
    /// The columns an upsert matches rows on (names of ``columns``); empty for other modes, but
    /// for a child table, its parent's key.
    public let key: [String]
    /// What a run does when the table differs from ``columns``.
    public let contract: Contract
    /// Where the output is declared.
    public let location: SourceLocation
    /// Whether `schema: evolve` may widen a column whose type cannot hold the pipeline's values
    /// (`widen: true`): integer → bigint → double → text, never narrower.
    public internal(set) var widens = false
    /// The child tables the lists of some keys go to (`child_tables:`), one per key; those keys
    /// are not columns of this table.
    public internal(set) var children: [ChildTablePlan] = []
    /// The columns of a (not unique) index made with the table when the run creates it: a child
    /// table's parent key, which an upsert deletes a parent's old rows by.
    var lookupIndex: [String] = []
    /// Whether the columns were found from the run's records (a child table's) rather than
    /// declared: the table's columns the records lack then load as null under every contract,
    /// and a column whose type holds the values loads as it is.
    var columnsFromRecords = false

    /// The schema and the table a PostgreSQL table's qualified name (`analytics.issues`) names:
    /// split at its first dot; `nil` for a name without one.
    static func schemaAndTable(_ name: String) -> (schema: String, table: String)? {
        guard let dot = name.firstIndex(of: ".") else { return nil }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// The same table loaded with `columns` instead (the columns a run settled on with the
    /// table already there, ``TableSettlement``).
    func loading(_ columns: [TableColumn]) -> TablePlan {
        var plan = TablePlan(
            engine: engine, database: database, name: name, mode: mode, columns: columns, key: key, contract: contract,
            location: location)
        plan.children = children
        plan.widens = widens
        plan.lookupIndex = lookupIndex
        plan.columnsFromRecords = columnsFromRecords
        return plan
    }
}

/// One column of a ``TablePlan``: a declared key's constant and the type of its values.
public struct TableColumn: Sendable, Hashable {
    /// The column's name: the key's constant (`kPropertyListDataKeyID`).
    public let name: String
    /// The key's short name in the pipeline (`id`).
    public let key: String
    /// What its values are.
    public let type: ColumnType
    /// Whether the type was declared in `types:` or inferred from a conversion, a template or a
    /// constant of the chain (values are then converted to it); `false`: nothing says, and the
    /// column takes any value as text.
    public let isKnown: Bool
}

/// The type of a table column's values, as the pipeline names it (`types: { price: int }`).
public enum ColumnType: String, Sendable, CaseIterable {
    /// A 64-bit integer (`INTEGER`).
    case int
    /// A double (`REAL`); integers are stored as doubles.
    case double
    /// `true`/`false`, stored as the integers 1 and 0 (declared `BOOLEAN`, read back as bools).
    case bool
    /// Text (`TEXT`).
    case text
    /// An ISO 8601 date or date-time, as `convert: date` makes it (`TEXT`).
    case date
    /// Any value as compact JSON text (`JSON`): for arrays and objects.
    case json

    /// The type a PostgreSQL column is created with: `bigint`, `double precision`, `boolean`,
    /// `text`, `timestamptz` (dates are UTC date-times), `jsonb`.
    public var postgresType: String {
        switch self {
        case .int: "bigint"
        case .double: "double precision"
        case .bool: "boolean"
        case .text: "text"
        case .date: "timestamptz"
        case .json: "jsonb"
        }
    }

    /// The type the column is declared with in SQLite's `CREATE TABLE`.
    public var sqlType: String {
        switch self {
        case .int: "INTEGER"
        case .double: "REAL"
        case .bool: "BOOLEAN"
        case .text, .date: "TEXT"
        case .json: "JSON"
        }
    }
}
