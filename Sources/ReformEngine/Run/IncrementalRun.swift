import ReformSDK
import ReformSystem

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
        /// The highest floor a compaction of `nearTop` kept records from: what was landed below
        /// it is no longer known one by one.
        var compactedFloor: IncrementalCursor.Position?
        /// `highest` before the last record was taken, to put back when an output rejects it.
        var highestBefore: (position: IncrementalCursor.Position, value: Value)?
        /// The lowest cursor among the records an output rejected in this run: the bookmark
        /// stays at or below it, so the next run fetches them again.
        var lowestRejected: (position: IncrementalCursor.Position, value: Value)?
        /// How many records of this partition an output rejected in this run.
        var rejected = 0
        /// The position of the cursor this run sent (`.some(nil)`: none; `nil`: not worked out yet).
        var sentFloor: IncrementalCursor.Position??
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
    /// Each file output's shape (format, csv columns), by output index, as the state saves it.
    private var shapes: [Int: Object] = [:]
    /// What the run should say about the state before it started (outputs it no longer describes).
    private var notes: [String] = []
    /// Records dropped because the last run landed them already (the lookback edge).
    private(set) var skippedAsSeen = 0
    /// Records per manager whose cursor was missing or not of the declared format.
    private(set) var withoutCursor: [String: Int] = [:]
    /// Records per manager older than the cursor the run sent for them (the API may not honour
    /// the cursor parameter).
    private(set) var olderThanAsked: [String: Int] = [:]

    /// The state file a run of `runPlan` reads and writes, or `nil`: none of its managers is
    /// incremental, it is a batch run (`--input`) or leaves state alone, or its outputs are tables
    /// (which keep it).
    static func stateFile(runner: Runner, runPlan: RunPlan) -> String? {
        guard !runner.options.isBatch, !runner.options.ignoresState, runPlan.outputs.allSatisfy({ $0.table == nil }),
            runner.landingOrder(of: runPlan).contains(where: { runner.pipeline.managers[$0.index].incremental != nil })
        else { return nil }
        return StateStore.path(of: runner.pipeline, options: runner.options)
    }

    /// The incremental run of `runPlan`, or `nil` when none of its managers is incremental.
    init?(runner: Runner, runPlan: RunPlan) throws(RunError) {
        var plans: [String: IncrementalPlan] = [:]
        for ref in runner.landingOrder(of: runPlan) {
            if let plan = runner.pipeline.managers[ref.index].incremental { plans[ref.name] = plan }
        }
        guard !plans.isEmpty, !runner.options.isBatch, !runner.options.ignoresState else { return nil }
        self.plans = plans
        let options = runner.options
        if options.limit != nil || options.sample != nil {
            throw RunError(
                .system,
                "--limit and --sample land part of the data, and an incremental run would save a bookmark past what they left "
                    + "out; try the pipeline with --state PATH --full-refresh into a scratch folder instead")
        }
        // A device, FIFO or descriptor path (`/dev/null`) is written in place as any output is:
        // it can neither be appended to at a known length nor replaced by a staging file renamed
        // over it (which, run as root, made /dev/null a regular file holding the records).
        let outputs = runPlan.outputs.enumerated().compactMap { index, plan in
            OutputRuntime.path(of: plan, options: options).map { (index, $0) }
        }.filter { !OutputFile.isWrittenInPlace($0.1) }
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
        var shapes: [Int: Object] = [:]
        for (index, plan) in runPlan.outputs.enumerated() {
            if plan.table != nil { continue }
            let format = OutputRuntime.format(of: plan, options: options)
            shapes[index] = IncrementalRun.outputShape(of: plan, format: format)
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
        if !options.fullRefresh, tableState == nil {
            notes = try IncrementalRun.checkUnchanged(
                store: store, plans: plans, outputs: outputs.map { index, path in (path, shapes[index] ?? Object()) },
                described: described, resuming: resuming)
        }
        self.shapes = shapes
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
        if appending, !resuming, tableState == nil, !targets.isEmpty {
            // Marks the outputs as being written from here: a run killed before its first
            // checkpoint leaves them longer than the state says, and that is told apart from bytes
            // another program appended.
            try saveStart()
        }
        for (manager, _) in plans {
            for member in store.document["managers"]?.objectValue?[manager]?.objectValue?.members ?? [] {
                let place = { "the state file \(path), manager '\(manager)'" + (member.key.isEmpty ? "" : " partition \(member.key)") }
                progress[manager, default: [:]][member.key] = try IncrementalRun.progress(
                    from: member.value.objectValue ?? Object(), resuming: resuming, format: plans[manager]?.format ?? .opaque, at: place)
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
                if case .holding = step.kind { return step.name }
            }
        }
        return nil
    }

    private static func progress(from saved: Object, resuming: Bool, format: IncrementalPlan.Format, at place: () -> String)
        throws(RunError) -> PartitionProgress
    {
        var progress = PartitionProgress()
        // A bookmark the cursor cannot read would be sent as it is (and the API refuse it, or
        // worse, take it); an edge that is not a list would drop nothing and land records twice.
        if let bookmark = saved["bookmark"], !bookmark.isNull {
            guard IncrementalCursor(format: format).position(of: bookmark) != nil else {
                throw RunError(
                    .system,
                    "\(place()) has the bookmark \(JSON.compactString(bookmark).prefix(80)), which is not a \(format.rawValue) cursor: "
                        + "the file was edited or belongs to another pipeline; run 'reform state reset' (or --full-refresh) to start "
                        + "from nothing")
            }
            progress.bookmark = bookmark
        }
        if let edge = saved["edge"], edge.arrayValue?.allSatisfy({ $0.stringValue != nil }) != true {
            throw RunError(
                .system,
                "\(place()) has an 'edge' that is not a list of texts: the file was edited or damaged; run 'reform state reset' "
                    + "(or --full-refresh) to start from nothing")
        }
        for entry in saved["edge"]?.arrayValue ?? [] { if let text = entry.stringValue { progress.edge.insert(text) } }
        if resuming {
            if case .bool(true)? = saved["done"] { progress.done = true }
            // What the stopped run landed before its checkpoint counts for the bookmark it leaves.
            let cursor = IncrementalCursor(format: format)
            if let highest = saved["highest"], let position = cursor.position(of: highest) { progress.highest = (position, highest) }
            if let rejected = saved["lowest_rejected"], let position = cursor.position(of: rejected) {
                progress.lowestRejected = (position, rejected)
                if case .int(let count)? = saved["rejected"] { progress.rejected = count }
            }
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

    /// The origins of the saved resume requests that are not the service's base URL (an
    /// absolute next-page link): manager, partition, origin.
    var resumeOrigins: [(manager: String, partition: String, origin: String)] {
        progress.keys.sorted().flatMap { manager in
            (progress[manager] ?? [:]).compactMap { partition, entry in
                entry.resume?.request.origin.map { (manager, partition, $0) }
            }.sorted { $0.partition < $1.partition }
        }
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
        entry.highestBefore = entry.highest
        if entry.highest.map({ position > $0.position }) ?? true { entry.highest = (position, cursorValue) }
        // Seen or not, it is in this run's window: the next run's edge may need it.
        entry.nearTop.append((position, identity, cursorValue))
        if seen { return false }
        if entry.sentFloor == nil {
            let sent = (entry.bookmark ?? plan.start).map { IncrementalCursor(format: plan.format).sent($0, lookback: plan.lookback) }
            entry.sentFloor = .some(sent.flatMap { IncrementalCursor(format: plan.format).position(of: $0) })
        }
        if case .some(.some(let sent)) = entry.sentFloor, position < sent { olderThanAsked[manager, default: 0] += 1 }
        if entry.nearTop.count > max(4096, 2 * entry.compacted) {
            // A rejected record holds the bookmark back: what was written above it stays known.
            let top = [entry.highest?.position, entry.lowestRejected?.position].compactMap { $0 }.min()
            entry.nearTop = IncrementalRun.edge(of: entry.nearTop, top: top, lookback: plan.lookback)
            entry.compacted = entry.nearTop.count
            if let floor = IncrementalRun.floor(below: top, lookback: plan.lookback) {
                entry.compactedFloor = max(entry.compactedFloor ?? floor, floor)
            }
        }
        return true
    }

    /// Notes that an output rejected the record of `manager`'s partition that ``accept(_:of:partition:)``
    /// took last: it was not written, so the partition's bookmark must not pass it, and it is not
    /// part of the next run's edge (the next run fetches it again and writes it then).
    func rejected(_ record: Value, of manager: String, partition: String) {
        guard let plan = plans[manager],
            let position = IncrementalCursor(format: plan.format).position(of: record[path: plan.cursor] ?? .null),
            var entry = progress[manager]?[partition]
        else { return }
        defer { progress[manager, default: [:]][partition] = entry }
        if entry.nearTop.last?.position == position { entry.nearTop.removeLast() }
        entry.highest = entry.highestBefore
        entry.rejected += 1
        if entry.lowestRejected.map({ position < $0.position }) ?? true {
            entry.lowestRejected = (position, record[path: plan.cursor] ?? .null)
        }
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
        let older = olderThanAsked.keys.sorted().compactMap { manager -> String? in
            guard let count = olderThanAsked[manager], let plan = plans[manager] else { return nil }
            return "\(count) record\(count == 1 ? "" : "s") of manager '\(manager)' had a cursor ('\(plan.cursor)') older than the "
                + "'\(plan.param)' the run sent, and were written again: does the API honour '\(plan.param)'? Check the parameter's "
                + "name in the API's documentation (an API ignores a parameter it does not know)"
        }
        return notes + rejectionNotes() + older + withoutCursorWarnings
    }

    private var withoutCursorWarnings: [String] {
        withoutCursor.keys.sorted().compactMap { manager in
            guard let count = withoutCursor[manager], let plan = plans[manager] else { return nil }
            return "\(count) record\(count == 1 ? "" : "s") of manager '\(manager)' had no \(plan.format.rawValue) value at "
                + "'\(plan.cursor)' (its incremental cursor): the bookmark cannot move past them, so every run fetches them again; "
                + "check the cursor's path and format"
        }
    }

    // MARK: - Committing

    /// Saves the state with the outputs marked as being written from their saved lengths (a
    /// checkpoint before the first page).
    private func saveStart() throws(RunError) {
        var written = Object()
        for target in targets {
            written[target.path] = .object(["written": .string(target.written), "bytes": .int(target.offset)])
        }
        var store = store
        store.document["running"] = .object(["appending": .bool(appending), "outputs": .object(written)])
        try store.save()
    }

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
            var mark: Object = ["bytes": .int(identity.bytes), "inode": .int(identity.inode)]
            for member in (shapes[target.output] ?? Object()).members { mark[member.key] = member.value }
            if let tail = IncrementalRun.tailHash(of: target.written, bytes: identity.bytes) { mark["tail"] = .string(tail) }
            marks[target.path] = .object(mark)
        }
        var store = store
        store.document["running"] = nil
        store.document["outputs"] = .object(marks)
        store.document["pipeline"] = .object(["managers": IncrementalRun.managerShapes(plans)])
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
        let cursor = IncrementalCursor(format: plans[manager]?.format ?? .opaque)
        var object = Object()
        if final {
            let old = entry.bookmark.flatMap { bookmark in cursor.position(of: bookmark).map { (position: $0, value: bookmark) } }
            // The bookmark moves to the highest cursor landed when the partition was read to its
            // end (one read only in part, skipped after a failure, keeps its bookmark: what it did
            // not land is still to come) — but never past a record an output rejected: the next
            // run fetches that one again.
            var target = old
            if entry.done, let highest = entry.highest, old.map({ highest.position > $0.position }) ?? true { target = highest }
            if let rejected = entry.lowestRejected, target.map({ rejected.position < $0.position }) ?? true { target = rejected }
            object["bookmark"] = target?.value ?? entry.bookmark ?? .null
            // The records written at or above the bookmark's floor are the next run's edge (it
            // fetches them again and drops them); the last run's edge still counts while the
            // bookmark has not moved past it.
            var edge = IncrementalRun.edge(of: entry.nearTop, top: target?.position, lookback: lookback).map(\.id)
            if let old, target.map({ $0.position <= old.position }) ?? true { edge += entry.edge }
            object["edge"] = .array(Set(edge).sorted().map { .string($0) })
            return object
        }
        object["bookmark"] = entry.bookmark ?? .null
        object["edge"] = .array(entry.edge.sorted().map { .string($0) })
        object["done"] = .bool(entry.done)
        if let highest = entry.highest {
            object["highest"] = highest.value
            let top = [highest.position, entry.lowestRejected?.position].compactMap { $0 }.min()
            let near = IncrementalRun.edge(of: entry.nearTop, top: top, lookback: lookback)
            object["near_top"] = .array(near.map { .array([$0.cursor, .string($0.id)]) })
        }
        if let rejected = entry.lowestRejected {
            object["lowest_rejected"] = rejected.value
            object["rejected"] = .int(entry.rejected)
        }
        if let resume = entry.resume {
            object["resume"] = .object(["request": IncrementalRun.value(of: resume.request), "pages_done": .int(resume.pagesDone)])
        }
        return object
    }

    /// What the final state says about the partitions whose rejected records hold their bookmark
    /// back, and where the next run's edge may be incomplete.
    private func rejectionNotes() -> [String] {
        var notes: [String] = []
        for manager in progress.keys.sorted() {
            guard let plan = plans[manager], let partitions = progress[manager] else { continue }
            let held = partitions.filter { $0.value.lowestRejected != nil }
            guard !held.isEmpty else { continue }
            let count = held.values.reduce(0) { $0 + $1.rejected }
            let labels = held.keys.sorted().filter { !$0.isEmpty }
            let which =
                labels.isEmpty
                ? ""
                : " (partition\(labels.count == 1 ? "" : "s") \(labels.prefix(5).joined(separator: ", "))\(labels.count > 5 ? ", …" : ""))"
            var note =
                "\(count) record\(count == 1 ? "" : "s") of manager '\(manager)'\(which) were rejected, so its bookmark does not move "
                + "past them: the next run fetches them again and writes them once the pipeline takes them (see the dead-letter file)"
            let incomplete = held.values.contains { entry in
                guard let floor = entry.compactedFloor, let rejected = entry.lowestRejected else { return false }
                return IncrementalRun.floor(below: rejected.position, lookback: plan.lookback).map { $0 < floor } ?? false
            }
            if incomplete {
                note +=
                    "; more than 4096 records had landed above a rejected one, so some of them may be written again by the next run"
            }
            notes.append(note)
        }
        return notes
    }

    /// The lowest position the edge below `top` keeps (`lookback` seconds below it for time formats).
    private static func floor(below top: IncrementalCursor.Position?, lookback: Double) -> IncrementalCursor.Position? {
        guard let top else { return nil }
        if case .number(let n) = top { return .number(n.subtractingSaturated(Int(saturating: lookback.rounded(.up)))) }
        return top
    }

    /// The records of `records` within `lookback` seconds (time formats) of the top, or at it.
    private static func edge(
        of records: [(position: IncrementalCursor.Position, id: String, cursor: Value)], top: IncrementalCursor.Position?, lookback: Double
    ) -> [(position: IncrementalCursor.Position, id: String, cursor: Value)] {
        guard let floor = floor(below: top, lookback: lookback) else { return [] }
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
