import ReformConcurrency
import ReformEngine
import ReformSDK
import ReformSystem
import ReformTooling
import ReformYAML

/// One studio's pipeline file and its runs: what the page's API calls read and change.
///
/// Runs go through the engine in this process (``Runner``), watched (``RunWatch``); their output
/// files and dead letters go under a scratch folder of the session, never over the pipeline's own
/// outputs, and their incremental state to a state file there.
actor StudioSession {
    /// The pipeline file, as given.
    let path: String
    /// Where runs write their outputs, dead letters and state.
    let scratch: String
    /// The environment `${VAR}`s resolve from.
    private let environment: [String: String]
    private var current: StudioRun?
    /// Per run name, the last of its runs that finished before ``current``: what "changes"
    /// compares with. Other runs' folders are removed as they are left behind.
    private var baselines: [String: StudioRun] = [:]
    private var nextRunID = 1

    /// A session on the pipeline at `path`, its runs writing under `scratch` (made when missing).
    init(path: String, scratch: String, environment: [String: String]) {
        self.path = path
        self.scratch = scratch
        self.environment = environment
    }

    // MARK: The file

    /// The file's text and when it last changed.
    func file() throws(StudioError) -> (text: String, modified: Double) {
        do {
            let bytes = try FilePaths.readAll(path, limit: YAMLLimits.default.maxInputBytes)
            return (String(decoding: bytes, as: UTF8.self), FilePaths.modificationTime(path) ?? 0)
        } catch {
            throw StudioError(status: 500, "cannot read \(path): \(error)")
        }
    }

    /// When the file last changed (the page reloads a file another editor saved).
    func modified() -> Double { FilePaths.modificationTime(path) ?? 0 }

    /// Writes `text` as the file, atomically (a reader sees the old file or the new, never half).
    func save(_ text: String) throws(StudioError) -> Double {
        do {
            let file = try OutputFile.atomic(path: path)
            file.buffer.append(contentsOf: Array(text.utf8))
            try file.commit()
        } catch {
            throw StudioError(status: 500, "cannot save \(path): \(error.description)")
        }
        return modified()
    }

    // MARK: Checking

    /// `text` checked as the pipeline file would be: its diagnostics (errors, then warnings, each
    /// at its line and column, with the CLI's words), and when it loads, its runs and their params.
    func check(_ text: String) -> Value {
        var object = Object()
        do {
            let pipeline = try loader().load(bytes: Array(text.utf8), file: path, folder: FilePaths.folder(of: path))
            object["ok"] = .bool(true)
            object["diagnostics"] = .array(pipeline.warnings.map(StudioSession.json))
            object["summary"] = .string("ok (\(pipeline.counts))")
            object["runs"] = .array(StudioSession.runs(of: pipeline))
        } catch {
            object["ok"] = .bool(false)
            object["diagnostics"] = .array(error.diagnostics.map(StudioSession.json))
        }
        return .object(object)
    }

    private func loader() -> PipelineLoader { PipelineLoader(environment: environment) }

    static func json(_ diagnostic: Diagnostic) -> Value {
        .object([
            "line": .int(diagnostic.location.line), "column": .int(diagnostic.location.column),
            "severity": .string(diagnostic.severity.rawValue), "message": .string(diagnostic.message),
            "text": .string(diagnostic.description),
        ])
    }

    /// Each run: its name, managers, and the params its managers declare (the page's form).
    static func runs(of pipeline: Pipeline) -> [Value] {
        pipeline.runs.map { run in
            var seen: Set<String> = []
            var params: [Value] = []
            for ref in run.managers {
                let manager = pipeline.managers[ref.index]
                // A fan-out sets its own params, one partition at a time (a --param list overrides them).
                let fannedOut = Set(manager.partitions?.params ?? [])
                for param in manager.params where seen.insert(param.name).inserted {
                    var object = Object()
                    object["name"] = .string(param.name)
                    object["manager"] = .string(ref.name)
                    object["required"] = .bool(
                        param.required && run.params[param.name] == nil && param.defaultValue == nil && !fannedOut.contains(param.name))
                    if fannedOut.contains(param.name) { object["fanned_out"] = .bool(true) }
                    if let kind = param.kind { object["type"] = .string("\(kind)") }
                    if let pattern = param.pattern { object["pattern"] = .string(pattern) }
                    if let allowed = param.allowed { object["choices"] = .array(allowed) }
                    if let value = run.params[param.name] ?? param.defaultValue { object["value"] = value }
                    params.append(.object(object))
                }
            }
            return .object([
                "name": .string(run.name), "managers": .array(run.managers.map { .string($0.name) }), "params": .array(params),
            ])
        }
    }

    // MARK: Runs

    /// Starts run `run` (`nil`: the default) of the file as it is on disk, in `mode`, with `params`
    /// given as the command line's `--param`s; a run still going is cancelled first, unless this
    /// one cannot start (the file does not load, no such run). Returns its id.
    func start(run: String?, mode: SourceMode, params: [String: String], inputs: [String: String] = [:]) throws(StudioError) -> Int {
        let pipeline = try loaded()
        var options = try options(for: run, of: pipeline)
        options.inputs = try files(inputs, of: pipeline)
        // Only a run that can start stops the one going.
        if let current { leave(current) }
        let id = nextRunID
        nextRunID += 1
        let folder = FilePaths.resolve("run-\(id)", against: scratch)
        options.mode = mode
        options.params = params.mapValues(CommandLineValue.parse)
        options.outputFolder = folder
        options.outputPath = FilePaths.resolve("standard-output", against: folder)
        options.deadLetterPath = FilePaths.resolve("dead-letter.ndjson", against: folder)
        options.collectsStats = true
        options.colour = false
        let started = StudioRun(id: id, runName: run ?? "default", mode: mode, folder: folder, pipeline: pipeline, options: options)
        current = started
        return id
    }

    /// The options every run of `run` (`nil`: the default) from the studio shares: the
    /// environment, and the state file in the scratch folder, unless the run's outputs are tables
    /// (their database keeps its state, as for `reform run`).
    private func options(for run: String?, of pipeline: Pipeline) throws(StudioError) -> RunOptions {
        guard pipeline.run(named: run) != nil else {
            let names = pipeline.runs.map(\.name)
            throw StudioError(
                status: 422, "no run called '\(run ?? "default")' in \(path) (runs: \(names.joined(separator: ", ")))")
        }
        var options = RunOptions()
        options.runName = run
        options.environment = environment
        if pipeline.run(named: run)?.outputs.contains(where: { $0.table != nil }) != true {
            options.statePath = FilePaths.resolve("state.json", against: scratch)
        }
        return options
    }

    // MARK: State

    /// What the incremental managers of `run` remember between the studio's runs: where it is
    /// kept and, per partition, the columns `reform state show` prints.
    func state(run: String?) throws(StudioError) -> Value {
        let pipeline = try loaded()
        let saved: SavedState
        let options = try options(for: run, of: pipeline)
        do { saved = try SavedState.read(pipeline, options: options) } catch {
            throw StudioError(status: 500, error.description)
        }
        return .object([
            "place": .string(saved.place), "in_table": .bool(saved.inTable),
            "columns": .array(SavedState.columns.map { .string($0) }),
            "rows": .array(saved.rows().map { .array($0.map { .string($0) }) }),
        ])
    }

    /// Forgets what `manager` (every manager when `nil`), or only its `partition`, of `run`
    /// remembers, as `reform state reset` does: the next run fetches it all again.
    func resetState(run: String?, manager: String?, partition: String? = nil) throws(StudioError) -> Value {
        let pipeline = try loaded()
        let options = try options(for: run, of: pipeline)
        do {
            let place = try SavedState.forget(manager: manager, partition: manager == nil ? nil : partition, of: pipeline, options: options)
            let what = (manager == nil ? nil : partition).map { "partition '\($0)' of " } ?? ""
            return .object(["reset": .string("state of \(what)\(manager.map { "manager '\($0)'" } ?? "every manager") reset in \(place)")])
        } catch {
            throw StudioError(status: 500, error.description)
        }
    }

    /// The pipeline as it is on disk, or why it does not load.
    private func loaded() throws(StudioError) -> Pipeline {
        do { return try loader().load(path: path) } catch {
            throw StudioError(status: 422, "the pipeline does not load; fix it first:\n" + error.description)
        }
    }

    /// Lets `run` go as the current run: cancelled if still going; kept as its run name's baseline
    /// when it finished (the baseline it replaces removed), else removed with what it wrote.
    private func leave(_ run: StudioRun) {
        run.cancel()
        guard run.phase == .done else {
            // Once it has unwound: a cancelled run may still be closing its files.
            Task {
                await run.ended()
                ScratchFolder.remove(run.folder)
            }
            return
        }
        if let older = baselines.updateValue(run, forKey: run.runName) { ScratchFolder.remove(older.folder) }
    }

    /// What changed in the files the current run wrote since the last run of the same run that
    /// finished (``StudioChanges``), records matched by `key` when given.
    func changes(key: String?) throws(StudioError) -> Value {
        guard let current, current.phase == .done else {
            throw StudioError(status: 409, "no finished run to compare: run the pipeline")
        }
        guard let baseline = baselines[current.runName] else {
            return .object([
                "run": .int(current.id),
                "none": .string("no earlier run of '\(current.runName)' to compare with: run it again after a change"),
            ])
        }
        return .object([
            "run": .int(current.id), "against": .int(baseline.id), "run_name": .string(current.runName),
            "files": try StudioChanges.compare(old: baseline.folder, new: current.folder, key: key),
        ])
    }

    /// The input files given per manager (`--input MANAGER=PATH` of `reform run`), each relative to
    /// the pipeline's folder and inside it: the page reads nothing of the machine but what the
    /// pipeline's folder holds.
    private func files(_ inputs: [String: String], of pipeline: Pipeline) throws(StudioError) -> [(manager: String, path: String)] {
        var files: [(manager: String, path: String)] = []
        for (manager, given) in inputs.sorted(by: { $0.key < $1.key }) where !given.isEmpty {
            guard pipeline.manager(named: manager) != nil else {
                throw StudioError(status: 422, "no manager '\(manager)' in \(path) to give the input '\(given)' to")
            }
            let file = FilePaths.resolve(given, against: pipeline.folder)
            guard FilePaths.isInside(file, folder: pipeline.folder) else {
                throw StudioError(
                    status: 422,
                    "the input '\(given)' of manager '\(manager)' is outside the pipeline's folder (\(pipeline.folder)); "
                        + "the studio reads inputs from there only: copy or link the file into it")
            }
            guard FilePaths.exists(file) else {
                throw StudioError(status: 422, "the input '\(given)' of manager '\(manager)' does not exist (\(file))")
            }
            files.append((manager, file))
        }
        return files
    }

    /// Asks the current run to stop (its requests are cancelled; nothing is written).
    func cancel() {
        current?.cancel()
    }

    /// The current run as the page shows it; `nil` before the first. When the page read it at
    /// `changes` and `phase` (and it is the same run), only `{"unchanged": true}` if nothing changed.
    func status(after changes: Int? = nil, phase: String? = nil, run id: Int? = nil) -> Value? {
        guard let current else { return nil }
        guard id == current.id else { return current.json() }
        return current.json(after: changes, phase: phase) ?? .object(["id": .int(current.id), "unchanged": .bool(true)])
    }

    /// Page `number` of the current run, body included.
    func page(_ number: Int) throws(StudioError) -> Value {
        guard let current else { throw StudioError(status: 404, "no run yet") }
        guard let page = current.page(number) else {
            throw StudioError(
                status: 404, "page \(number) of run \(current.id) is no longer kept (the last \(current.watch.limits.pages) are)")
        }
        return page
    }
}

/// A failed studio request: the HTTP status and what to tell the page.
struct StudioError: Error, Sendable {
    /// The status to answer with.
    let status: Int
    /// What went wrong, in the CLI's words.
    let message: String

    init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
