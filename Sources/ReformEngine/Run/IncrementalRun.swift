import ReformSDK

#if canImport(Glibc)
import Glibc
#endif

/// One run of a pipeline with incremental managers: what it asks for (each partition's bookmark
/// less the lookback), what it drops (the records at the edge the last run already landed), where
/// it resumes (the last checkpoint of a killed run), and how its outputs and state are committed
/// together.
///
/// Outputs are written in place at a known length: appended to when the saved state describes
/// them (same inode, at least the saved length, cut back to it), else written to a hidden staging
/// file (`.NAME.reform-staging`) renamed over the output at the end. Every `checkpoint` pages the
/// outputs are synced, then the state is saved: the state file is the commit point.
final class IncrementalRun {
    /// One resumable output: where it is written and where it ends up.
    struct Target {
        /// The output's index in the run.
        let output: Int
        /// Its path.
        let path: String
        /// The file written: the output itself when appending, else its staging file.
        let written: String
        /// Its length at the last checkpoint (where writing starts).
        let offset: Int
    }

    /// What one partition of an incremental manager knows in this run.
    struct PartitionProgress {
        /// The bookmark of the last finished run (what this run asks from).
        var bookmark: Value?
        /// The records the last finished run landed at its bookmark's edge (id and cursor).
        var edge: Set<String> = []
        /// The highest cursor landed in this run, and its value.
        var highest: (position: IncrementalCursor.Position, value: Value)?
        /// Records of this run near its highest cursor, for the next run's edge.
        var nearTop: [(position: IncrementalCursor.Position, id: String, cursor: Value)] = []
        /// Where this partition resumes: the next page's request and the pages done before it.
        var resume: (request: HTTPRequest, pagesDone: Int)?
        /// Whether it has been read to its end in this run.
        var done = false
        /// How many records `nearTop` kept at its last compaction.
        var compacted = 0
    }

    private(set) var store: StateStore
    /// Where the state is kept when the run's outputs are tables: in their database, committed
    /// in their transaction (no state file, no checkpoints).
    let tableState: TableStateStore?
    /// Whether the outputs are appended to (else replaced through staging files).
    let appending: Bool
    /// Whether the last run stopped at a checkpoint and this one goes on from it.
    let resuming: Bool
    /// The resumable outputs.
    let targets: [Target]
    private var progress: [String: [String: PartitionProgress]] = [:]
    private var pagesSinceCheckpoint = 0
    /// Set when a checkpoint is due (checked between records).
    private(set) var checkpointDue = false
    private let plans: [String: IncrementalPlan]
    /// Records dropped because the last run landed them already (the lookback edge).
    private(set) var skippedAsSeen = 0
    /// Records per manager whose cursor was missing or not of the declared format.
    private(set) var withoutCursor: [String: Int] = [:]

    /// The incremental run of `runPlan`, or `nil` when none of its managers is incremental.
    init?(runner: Runner, runPlan: RunPlan) throws(RunError) {
        var plans: [String: IncrementalPlan] = [:]
        for ref in runner.landingOrder(of: runPlan) {
            if let plan = runner.pipeline.managers[ref.index].incremental { plans[ref.name] = plan }
        }
        guard !plans.isEmpty, !runner.options.isBatch else { return nil }
        self.plans = plans
        let options = runner.options
        if options.limit != nil || options.sample != nil {
            throw RunError(
                .system,
                "--limit and --sample land part of the data, and an incremental run would save a bookmark past what they left "
                    + "out; try the pipeline with --state PATH --full-refresh into a scratch folder instead")
        }
        let outputs = runPlan.outputs.enumerated().compactMap { index, plan in
            OutputRuntime.path(of: plan, options: options).map { (index, $0) }
        }
        let tableState = try IncrementalRun.tableState(of: runPlan, runner: runner)
        self.tableState = tableState
        let path = StateStore.path(of: runner.pipeline, options: options)
        var store: StateStore
        if let tableState {
            // The state is the table's: the state file is neither read nor written.
            store = StateStore(path: path, document: options.fullRefresh ? Object() : ["managers": .object(try tableState.load())])
        } else {
            try StateStore.checkPlace(path)
            store = options.fullRefresh ? StateStore(path: path, document: Object()) : try StateStore.load(path: path)
        }
        for (index, plan) in runPlan.outputs.enumerated() {
            if plan.table != nil { continue }
            let format = (plan.path == nil ? options.format : nil) ?? plan.format ?? (plan.rows != nil ? .table : .ndjson)
            guard format == .ndjson || format == .csv || OutputRuntime.path(of: plan, options: options) == nil else {
                throw RunError(
                    .output,
                    "output \(index + 1) of run '\(runPlan.name)' is \(format.rawValue); an incremental run appends to its outputs as it "
                        + "goes, which only ndjson and csv allow; write ndjson or csv, or reform the file afterwards")
            }
            if format == .csv, plan.keys == nil, plan.rows == nil, OutputRuntime.path(of: plan, options: options) != nil {
                throw RunError(
                    .output,
                    "output \(index + 1) of run '\(runPlan.name)' is csv of raw records: an incremental run appends to it, and raw "
                        + "records can bring other columns than its header; end its chain with a reformer that declares 'keys', or write ndjson"
                )
            }
            if let step = IncrementalRun.holdingStep(in: plan) {
                throw RunError(
                    .output,
                    "output \(index + 1) of run '\(runPlan.name)' has '\(step)', which holds records until the end; an incremental "
                        + "run writes as it goes (so it can resume after a crash): remove it, or apply it to the output afterwards")
            }
        }
        let saved = store.outputs
        let running = store.document["running"]?.objectValue
        // The state describes the outputs when each is the file it saved (same inode, not shorter).
        let described =
            outputs.isEmpty
            || !saved.isEmpty
                && outputs.allSatisfy { _, path in
                    guard let mark = saved[path], let now = fileIdentity(path) else { return false }
                    return now.inode == mark.inode && now.bytes >= mark.bytes
                }
        var resuming = false
        var appending = described
        var offsets: [String: Int] = described ? saved.mapValues(\.bytes) : [:]
        if let running, case .bool(let wasAppending)? = running["appending"],
            let written = running["outputs"]?.objectValue
        {
            // A run stopped at a checkpoint: go on writing what it wrote, from there.
            resuming = outputs.allSatisfy { _, path in
                guard let mark = written[path]?.objectValue, case .int(let bytes)? = mark["bytes"],
                    let target = mark["written"]?.stringValue, let now = fileIdentity(target)
                else { return false }
                return now.bytes >= bytes
            }
            if resuming {
                appending = wasAppending
                offsets = [:]
                for (_, path) in outputs {
                    if case .int(let bytes)? = written[path]?.objectValue?["bytes"] { offsets[path] = bytes }
                }
            }
        }
        if !resuming {
            store.document["running"] = nil
            // The outputs are not the ones the state describes (or there are none yet): start again
            // from nothing.
            if !described { store.document["managers"] = nil }
        }
        self.store = store
        self.appending = appending
        self.resuming = resuming
        targets = outputs.map { index, path in
            Target(
                output: index, path: path, written: appending ? path : IncrementalRun.stagingPath(of: path),
                offset: offsets[path] ?? 0)
        }
        for (manager, _) in plans {
            for member in store.document["managers"]?.objectValue?[manager]?.objectValue?.members ?? [] {
                progress[manager, default: [:]][member.key] = IncrementalRun.progress(
                    from: member.value.objectValue ?? Object(), resuming: resuming, format: plans[manager]?.format ?? .opaque)
            }
        }
    }

    /// Where a run whose outputs are tables keeps its state (`nil` for file outputs); throws when
    /// its outputs mix tables with files or databases, or a table would be replaced.
    private static func tableState(of runPlan: RunPlan, runner: Runner) throws(RunError) -> TableStateStore? {
        let tables = runPlan.outputs.compactMap(\.table)
        guard let first = tables.first else { return nil }
        for (index, plan) in runPlan.outputs.enumerated() {
            let what = "output \(index + 1) of run '\(runPlan.name)'"
            guard let table = plan.table else {
                throw RunError(
                    .output,
                    "\(what) writes a file, and the run also loads table '\(first.name)': an incremental run keeps its state in "
                        + "one place, committed with its outputs; give it only table outputs of one database, or only files")
            }
            guard table.engine == first.engine, table.database == first.database else {
                throw RunError(
                    .output,
                    "\(what) loads a table of another database than '\(first.name)': an incremental run keeps its state in the "
                        + "tables' database, committed in one transaction with them; load one database per run")
            }
            guard table.mode != .replace else {
                throw RunError(
                    .output,
                    "\(what) replaces table '\(table.name)', but an incremental run lands only what changed since the last run; "
                        + "set mode: upsert with key: [...] (which also drops the records a lookback lands again), or mode: append")
            }
        }
        let database: String
        do { database = try OutputRuntime.database(of: first, options: runner.options) } catch { throw RunError(error) }
        return TableStateStore(
            engine: first.engine, database: database, pipeline: StateStore.stateName(of: runner.pipeline, options: runner.options))
    }

    /// The hidden file a replacing run writes `path` to before renaming it into place.
    static func stagingPath(of path: String) -> String {
        FilePaths.resolve("." + FilePaths.name(of: path) + ".reform-staging", against: FilePaths.folder(of: path))
    }

    /// The first step of `plan`'s chain that holds records until the end, if any.
    private static func holdingStep(in plan: OutputPlan) -> String? {
        if let rows = plan.rows, rows.shape.sortColumn != nil { return "sort" }
        for reformer in plan.chain {
            guard case .steps(let steps) = reformer.kind else { continue }
            for step in steps {
                switch step.kind {
                case .sort: return "sort"
                case .dedupe: return "dedupe"
                case .limit: return "limit"
                default: continue
                }
            }
        }
        return nil
    }

    private static func progress(from saved: Object, resuming: Bool, format: IncrementalPlan.Format) -> PartitionProgress {
        var progress = PartitionProgress()
        if let bookmark = saved["bookmark"], !bookmark.isNull { progress.bookmark = bookmark }
        for entry in saved["edge"]?.arrayValue ?? [] { if let text = entry.stringValue { progress.edge.insert(text) } }
        if resuming {
            if case .bool(true)? = saved["done"] { progress.done = true }
            // What the stopped run landed before its checkpoint counts for the bookmark it leaves.
            let cursor = IncrementalCursor(format: format)
            if let highest = saved["highest"], let position = cursor.position(of: highest) { progress.highest = (position, highest) }
            for pair in saved["near_top"]?.arrayValue ?? [] {
                guard let items = pair.arrayValue, items.count == 2, let id = items[1].stringValue,
                    let position = cursor.position(of: items[0])
                else { continue }
                progress.nearTop.append((position, id, items[0]))
            }
            if let resume = saved["resume"]?.objectValue, let request = IncrementalRun.request(from: resume["request"]),
                case .int(let pages)? = resume["pages_done"]
            {
                progress.resume = (request, pages)
            }
        }
        return progress
    }

    // MARK: - What each partition asks for

    /// Whether `manager` is one of the run's incremental managers.
    func isIncremental(_ manager: String) -> Bool { plans[manager] != nil }

    /// Whether `manager`'s partition `partition` was read to its end before a checkpoint the run
    /// resumes from (it is not fetched again).
    func isDone(_ manager: String, partition: String) -> Bool {
        progress[manager]?[partition]?.done ?? false
    }

    /// Where `manager`'s partition resumes, when the run resumes from a checkpoint inside it.
    func resumePoint(_ manager: String, partition: String) -> (request: HTTPRequest, pagesDone: Int)? {
        progress[manager]?[partition]?.resume
    }

    /// The parameters `manager`'s partition adds: its cursor parameter, from the bookmark less
    /// the lookback (or the declared start; none on a first run without one).
    func params(_ manager: String, partition: String) -> [String: Value] {
        guard let plan = plans[manager] else { return [:] }
        let cursor = IncrementalCursor(format: plan.format)
        guard let bookmark = progress[manager]?[partition]?.bookmark ?? plan.start else { return [:] }
        return [plan.param: cursor.sent(bookmark, lookback: plan.lookback)]
    }

    // MARK: - While landing

    /// Takes one landed record of `manager`'s partition: `false` when the last run landed it
    /// already (same id, same cursor: the lookback edge), else notes its cursor.
    func accept(_ record: Value, of manager: String, partition: String) -> Bool {
        guard let plan = plans[manager] else { return true }
        let cursorValue = record[path: plan.cursor] ?? .null
        let id = plan.key.flatMap { record[path: $0] }.map { JSON.compactString($0) } ?? JSON.compactString(record)
        let identity = id + "\u{0}" + JSON.compactString(cursorValue)
        var entry = progress[manager]?[partition] ?? PartitionProgress()
        defer { progress[manager, default: [:]][partition] = entry }
        let seen = entry.edge.contains(identity)
        if seen { skippedAsSeen += 1 }
        guard let position = IncrementalCursor(format: plan.format).position(of: cursorValue) else {
            withoutCursor[manager, default: 0] += 1
            return !seen
        }
        if entry.highest.map({ position > $0.position }) ?? true { entry.highest = (position, cursorValue) }
        // Seen or not, it is in this run's window: the next run's edge may need it.
        entry.nearTop.append((position, identity, cursorValue))
        if seen { return false }
        if entry.nearTop.count > max(4096, 2 * entry.compacted) {
            entry.nearTop = IncrementalRun.edge(of: entry.nearTop, top: entry.highest?.position, lookback: plan.lookback)
            entry.compacted = entry.nearTop.count
        }
        return true
    }

    /// Notes that every record of a page of `manager`'s partition has been handed out: the run
    /// resumes at `next` (none: the partition is done); a checkpoint is due every `checkpoint` pages.
    func pageEnded(_ manager: String, partition: String, next: HTTPRequest?, pagesDone: Int) {
        var entry = progress[manager]?[partition] ?? PartitionProgress()
        if let next { entry.resume = (next, pagesDone) } else { entry.resume = nil }
        progress[manager, default: [:]][partition] = entry
        pagesSinceCheckpoint += 1
        if pagesSinceCheckpoint >= (plans[manager]?.checkpointPages ?? 10) { checkpointDue = true }
    }

    /// Notes that `manager`'s partition was read to its end.
    func partitionEnded(_ manager: String, partition: String) {
        var entry = progress[manager]?[partition] ?? PartitionProgress()
        entry.done = true
        entry.resume = nil
        progress[manager, default: [:]][partition] = entry
    }

    /// What the run should say about records without a cursor: their bookmark cannot move, so
    /// they are fetched (and appended) again by every run.
    var warnings: [String] {
        withoutCursor.keys.sorted().compactMap { manager in
            guard let count = withoutCursor[manager], let plan = plans[manager] else { return nil }
            return "\(count) record\(count == 1 ? "" : "s") of manager '\(manager)' had no \(plan.format.rawValue) value at "
                + "'\(plan.cursor)' (its incremental cursor): the bookmark cannot move past them, so every run fetches them again; "
                + "check the cursor's path and format"
        }
    }

    // MARK: - Committing

    /// Syncs the resumable outputs and saves the state with the position reached: a killed run's
    /// next run goes on from here.
    func checkpoint(_ outputs: [OutputRuntime]) throws(RunError) {
        checkpointDue = false
        pagesSinceCheckpoint = 0
        // Tables commit once, state and rows together: nothing is saved on the way.
        guard tableState == nil else { return }
        var written = Object()
        for target in targets {
            let bytes: Int
            do { bytes = try outputs[target.output].file?.sync() ?? 0 } catch { throw RunError(error) }
            written[target.path] = .object(["written": .string(target.written), "bytes": .int(bytes)])
        }
        var store = store
        store.document["running"] = .object(["appending": .bool(appending), "outputs": .object(written)])
        for (manager, partitions) in progress {
            for (partition, entry) in partitions {
                store.setPartition(partition, of: manager, to: saved(entry, final: false, manager: manager))
            }
        }
        try store.save()
    }

    /// Syncs the outputs, saves the final state (bookmarks moved on, no checkpoint), then puts
    /// staging files in place; for table outputs, writes the state into their open transaction
    /// (`tables`), which the run then commits.
    func commit(_ outputs: [OutputRuntime], tables: DatabaseTransactions) throws(RunError) {
        if let tableState {
            var store = store
            for (manager, partitions) in progress {
                for (partition, entry) in partitions {
                    store.setPartition(partition, of: manager, to: saved(entry, final: true, manager: manager))
                }
            }
            try tableState.save(store.document["managers"]?.objectValue ?? Object(), in: tables)
            self.store = store
            return
        }
        var marks = Object()
        for target in targets {
            do { _ = try outputs[target.output].file?.sync() } catch { throw RunError(error) }
            guard let identity = fileIdentity(target.written) else {
                throw RunError(.output, "\(target.written): the output being written is gone", cause: nil)
            }
            marks[target.path] = .object(["bytes": .int(identity.bytes), "inode": .int(identity.inode)])
        }
        var store = store
        store.document["running"] = nil
        store.document["outputs"] = .object(marks)
        for (manager, partitions) in progress {
            for (partition, entry) in partitions {
                store.setPartition(partition, of: manager, to: saved(entry, final: true, manager: manager))
            }
        }
        try store.save()
        for target in targets where target.written != target.path {
            if rename(target.written, target.path) != 0 {
                throw RunError(.output, "\(target.path): cannot move the finished file into place: \(OutputFile.systemError())", cause: nil)
            }
        }
        self.store = store
    }

    private func saved(_ entry: PartitionProgress, final: Bool, manager: String) -> Object {
        let lookback = plans[manager]?.lookback ?? 0
        let format = plans[manager]?.format ?? .opaque
        var object = Object()
        if final {
            // A partition read only in part (skipped after a failure) keeps its bookmark: what it
            // did not land is still to come.
            let moved =
                entry.done
                && entry.highest.map { highest in
                    entry.bookmark.flatMap { IncrementalCursor(format: plans[manager]?.format ?? .opaque).position(of: $0) }.map {
                        highest.position > $0
                    } ?? true
                } ?? false
            object["bookmark"] = moved ? entry.highest?.value : entry.bookmark
            let edge =
                moved
                ? IncrementalRun.edge(of: entry.nearTop, top: entry.highest?.position, lookback: lookback).map(\.id)
                : Array(entry.edge)
                    + IncrementalRun.edge(
                        of: entry.nearTop, top: entry.bookmark.flatMap { IncrementalCursor(format: format).position(of: $0) },
                        lookback: lookback
                    ).map(\.id)
            object["edge"] = .array(Set(edge).sorted().map { .string($0) })
            if object["bookmark"] == nil { object["bookmark"] = .null }
            return object
        }
        object["bookmark"] = entry.bookmark ?? .null
        object["edge"] = .array(entry.edge.sorted().map { .string($0) })
        object["done"] = .bool(entry.done)
        if let highest = entry.highest {
            object["highest"] = highest.value
            let near = IncrementalRun.edge(of: entry.nearTop, top: highest.position, lookback: lookback)
            object["near_top"] = .array(near.map { .array([$0.cursor, .string($0.id)]) })
        }
        if let resume = entry.resume {
            object["resume"] = .object(["request": IncrementalRun.value(of: resume.request), "pages_done": .int(resume.pagesDone)])
        }
        return object
    }

    /// The records of `records` within `lookback` seconds (time formats) of the top, or at it.
    private static func edge(
        of records: [(position: IncrementalCursor.Position, id: String, cursor: Value)], top: IncrementalCursor.Position?, lookback: Double
    ) -> [(position: IncrementalCursor.Position, id: String, cursor: Value)] {
        guard let top else { return [] }
        let floor: IncrementalCursor.Position
        if case .number(let n) = top {
            floor = .number(n.subtractingSaturated(Int(saturating: lookback.rounded(.up))))
        } else {
            floor = top
        }
        return records.filter { $0.position >= floor }
    }

    // MARK: - Requests in the state file

    static func value(of request: HTTPRequest) -> Value {
        var object: Object = ["method": .string(request.method), "path": .string(request.path)]
        object["query"] = .array(request.query.map { .array([.string($0.name), .string($0.value)]) })
        if let origin = request.origin { object["origin"] = .string(origin) }
        if let body = request.body { object["body"] = .string(String(decoding: body, as: UTF8.self)) }
        if !request.headers.isEmpty { object["headers"] = .array(request.headers.map { .array([.string($0.name), .string($0.value)]) }) }
        return .object(object)
    }

    static func request(from value: Value?) -> HTTPRequest? {
        guard let object = value?.objectValue, let method = object["method"]?.stringValue, let path = object["path"]?.stringValue else {
            return nil
        }
        let query = (object["query"]?.arrayValue ?? []).compactMap { pair -> QueryItem? in
            guard let items = pair.arrayValue, items.count == 2, let name = items[0].stringValue, let value = items[1].stringValue else {
                return nil
            }
            return QueryItem(name: name, value: value)
        }
        let headers = (object["headers"]?.arrayValue ?? []).compactMap { pair -> QueryItem? in
            guard let items = pair.arrayValue, items.count == 2, let name = items[0].stringValue, let value = items[1].stringValue else {
                return nil
            }
            return QueryItem(name: name, value: value)
        }
        var request = HTTPRequest(
            method: method, path: path, query: query, headers: headers, body: object["body"]?.stringValue.map { Array($0.utf8) })
        request.origin = object["origin"]?.stringValue
        return request
    }
}
