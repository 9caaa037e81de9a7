public import ReformSDK

/// What a run's incremental managers remember between runs, read from where the run keeps it:
/// its state file (``StateStore``), or, for a run whose outputs are tables, the table
/// `_reform_state` of their database, written in the run's transaction with the rows. What
/// `reform state show` prints.
public struct SavedState: Sendable {
    /// Where it is kept: the state file's path, or `DATABASE#_reform_state` (a PostgreSQL URL
    /// with its secrets hidden).
    public let place: String
    /// Whether it is kept in a database table rather than a file.
    public let inTable: Bool
    /// The saved form: the state file's document, or, for a table, `{"managers": …}` as a file
    /// would hold it.
    public let document: Object

    /// One partition's state, as `reform state show` lists it.
    public struct Partition: Sendable {
        /// The manager.
        public let manager: String
        /// The partition's label; empty for a manager that does not fan out.
        public let partition: String
        /// The bookmark the next run asks from (`nil` when none yet).
        public let bookmark: Value?
        /// How many records at the bookmark the last run landed (the next run drops them when
        /// its lookback lands them again).
        public let atBookmark: Int
        /// Whether the partition was done when the state was saved (a run stopped part-way).
        public let done: Bool
        /// The page a stopped run resumes from, when it stopped part-way: pages done, then the
        /// request's method and URL.
        public let resumesAfter: (pages: Int, request: String)?
    }

    /// The state of `manager` alone (nothing when it has none), kept where this is.
    public func only(manager: String) -> SavedState {
        SavedState(
            place: place, inTable: inTable,
            document: ["managers": .object([manager: document["managers"]?.objectValue?[manager] ?? .object(Object())])])
    }

    /// The managers' partitions, in the order they were saved.
    public var partitions: [Partition] {
        var list: [Partition] = []
        for manager in document["managers"]?.objectValue?.members ?? [] {
            for partition in manager.value.objectValue?.members ?? [] {
                let state = partition.value.objectValue ?? Object()
                var resume: (Int, String)?
                if let saved = state["resume"]?.objectValue {
                    let request = saved["request"]?.objectValue
                    let line = [request?["method"]?.stringValue, request?["url"]?.stringValue].compactMap { $0 }.joined(separator: " ")
                    var pages = 0
                    if case .int(let done)? = saved["pages_done"] { pages = done }
                    resume = (pages, line)
                }
                list.append(
                    Partition(
                        manager: manager.key, partition: partition.key,
                        bookmark: state["bookmark"].flatMap { value -> Value? in value.isNull ? Value?.none : value },
                        atBookmark: state["edge"]?.arrayValue?.count ?? 0, done: state["done"] == .bool(true), resumesAfter: resume))
            }
        }
        return list
    }

    /// The saved state of `pipeline`'s run (`options.runName`, `--state`, the output folder and
    /// the environment as `reform run` takes them). Nothing saved yet is an empty state.
    public static func read(_ pipeline: Pipeline, options: RunOptions) throws(RunError) -> SavedState {
        if let table = try tableStore(of: pipeline, options: options) {
            return SavedState(
                place: table.displayName + "#" + TableStateStore.table, inTable: true, document: ["managers": .object(try table.load())])
        }
        let store = try StateStore.load(path: StateStore.path(of: pipeline, options: options))
        return SavedState(place: store.path, inTable: false, document: store.document)
    }

    /// Forgets what `pipeline`'s run keeps in a table for `manager` (every manager when `nil`), or
    /// only its `partition`: deletes its rows of `_reform_state`. `nil` when the run keeps its
    /// state in a file (see ``StateStore/reset(manager:partition:)``); else where it was kept.
    public static func forgetInTable(manager: String?, partition: String? = nil, of pipeline: Pipeline, options: RunOptions)
        throws(RunError) -> String?
    {
        guard let table = try tableStore(of: pipeline, options: options) else { return nil }
        try table.forget(manager: manager, partition: partition)
        return table.displayName + "#" + TableStateStore.table
    }

    /// Forgets the state of `pipeline`'s run for `manager` (every manager when `nil`) and, with
    /// `withTables`, drops the tables the run loads: one transaction in their database, with the
    /// state kept there (`reform state drop`). The tables hold every manager's rows, so dropping
    /// them forgets every manager's state, `manager` or not: a manager whose state stayed would
    /// fetch only what changed into an empty table. Each dropped table is logged in
    /// `_reform_schema_log`. Returns what it did; `nil` when the run keeps its state in a file and
    /// no table is to be dropped (forget it with ``StateStore/reset(manager:partition:)``). Throws when
    /// tables are to be dropped and the run loads none, or loads tables of several databases.
    public static func drop(manager: String?, withTables: Bool, of pipeline: Pipeline, options: RunOptions) throws(RunError)
        -> DroppedState?
    {
        guard withTables else {
            return try forgetInTable(manager: manager, of: pipeline, options: options).map {
                DroppedState(place: $0, managers: manager.map { [$0] }, tables: [])
            }
        }
        guard let run = pipeline.run(named: options.runName) else { return nil }
        let tables = run.outputs.compactMap(\.table)
        guard let first = tables.first else {
            throw RunError(
                .output,
                "run '\(run.name)' of \(pipeline.file) loads no table: its outputs are files; leave out --with-tables to forget the "
                    + "state, and remove or replace the files yourself (reform run --full-refresh writes them anew)")
        }
        for table in tables where table.engine != first.engine || table.database != first.database {
            throw RunError(
                .output,
                "run '\(run.name)' loads tables of more than one database ('\(first.name)' and '\(table.name)'); "
                    + "drop them in one transaction each: give each database's run its own name")
        }
        let database: String
        do { database = try OutputRuntime.database(of: first, options: options) } catch { throw RunError(error) }
        let store = TableStateStore(
            engine: first.engine, database: database, pipeline: StateStore.stateName(of: pipeline, options: options))
        var names: [String] = []
        for table in tables {
            for name in [table.name] + table.children.map(\.name) where !names.contains(name) { names.append(name) }
        }
        try store.forget(manager: nil, dropping: names)
        return DroppedState(place: store.displayName + "#" + TableStateStore.table, managers: nil, tables: names)
    }

    /// Where `pipeline`'s run keeps its state when its outputs are tables (their first's database).
    private static func tableStore(of pipeline: Pipeline, options: RunOptions) throws(RunError) -> TableStateStore? {
        guard options.statePath == nil, let table = pipeline.run(named: options.runName)?.outputs.lazy.compactMap(\.table).first
        else { return nil }
        let database: String
        do { database = try OutputRuntime.database(of: table, options: options) } catch { throw RunError(error) }
        return TableStateStore(engine: table.engine, database: database, pipeline: StateStore.stateName(of: pipeline, options: options))
    }

    /// The partitions as a text table (``columns``, each partition's ``rows(now:)``), under a line
    /// saying where the state is kept; a line saying so when nothing is saved.
    public func text(now: Int? = nil) -> String {
        let rows = rows(now: now)
        let out = "kept in \(place)\n"
        guard !rows.isEmpty else { return out + "nothing saved yet: the next run fetches everything\n" }
        return out + AlignedColumns.text([SavedState.columns] + rows)
    }

    /// What ``rows(now:)`` says of each partition, as `reform state show` heads its columns.
    public static let columns = ["MANAGER", "PARTITION", "BOOKMARK", "AGE", "AT BOOKMARK", "NEXT RUN"]

    /// Per partition, in the order saved: the manager, the partition (`-` for none), the bookmark,
    /// a date bookmark's age at `now` (epoch seconds; the clock's when `nil`), the records at the
    /// bookmark, and what the next run does.
    public func rows(now: Int? = nil) -> [[String]] {
        let now = now ?? Int(RetryAfter.now())
        var table: [[String]] = []
        for row in partitions {
            let bookmark = row.bookmark.map { $0.stringValue ?? JSON.compactString($0) }
            let age = row.bookmark.flatMap { $0.stringValue != nil ? CivilDate.parse($0) : nil }.map {
                SavedState.age(now - $0.epochSeconds)
            }
            let next =
                row.resumesAfter.map { "resumes after page \($0.pages): \($0.request)" }
                ?? (row.done ? "done; asks from the bookmark" : bookmark == nil ? "fetches everything" : "asks from the bookmark")
            table.append([
                row.manager, row.partition.isEmpty ? "-" : row.partition, bookmark ?? "-", age ?? "-",
                row.atBookmark == 0 ? "-" : "\(row.atBookmark) record\(row.atBookmark == 1 ? "" : "s")", next,
            ])
        }
        return table
    }

    /// Forgets the state of `pipeline`'s run for `manager` (every manager when `nil`), or only
    /// its `partition` (the label `reform state show` lists), where the run keeps it: its rows of
    /// `_reform_state` when its outputs are tables, else its state file (forgetting everything
    /// needs nothing of the old file, which may be damaged or edited). Returns where it was kept.
    /// `reform state reset` and `reform studio` both forget so.
    public static func forget(manager: String?, partition: String? = nil, of pipeline: Pipeline, options: RunOptions) throws(RunError)
        -> String
    {
        if let table = try forgetInTable(manager: manager, partition: partition, of: pipeline, options: options) { return table }
        let path = StateStore.path(of: pipeline, options: options)
        var store = manager == nil ? StateStore(path: path) : try StateStore.load(path: path)
        store.reset(manager: manager, partition: partition)
        try store.save()
        return store.path
    }

    /// `42 s ago`, `5 min ago`, `3 h ago`, `12 days ago`, or `in 2 h` for a time ahead.
    static func age(_ seconds: Int) -> String {
        let ahead = seconds < 0
        let magnitude = seconds.magnitude
        let text: String
        switch magnitude {
        case ..<60: text = "\(magnitude) s"
        case ..<3600: text = "\(magnitude / 60) min"
        case ..<172_800: text = "\(magnitude / 3600) h"
        default: text = "\(magnitude / 86400) days"
        }
        return ahead ? "in \(text)" : "\(text) ago"
    }
}

/// What ``SavedState/drop(manager:withTables:of:options:)`` did.
public struct DroppedState: Sendable {
    /// Where the state was kept (`sqlite:out/l.db#_reform_state`).
    public let place: String
    /// The managers whose state it forgot; `nil`: every manager's.
    public let managers: [String]?
    /// The tables it dropped, in the run's output order.
    public let tables: [String]
}
