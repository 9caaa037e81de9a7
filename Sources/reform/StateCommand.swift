import ArgumentParser
import ReformEngine
import ReformSDK

/// `reform state`: what the incremental managers of a pipeline remember between runs.
struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Show, reset or drop what a pipeline's incremental managers remember between runs.",
        discussion: """
            The state file is .NAME.reform-state.json beside the run's first output file (or --state PATH, \
            as given to 'reform run'); a run whose outputs are tables keeps its state in the table \
            _reform_state of their database instead. 'show' lists each manager's bookmark per partition (with \
            its age when it is a date), the records at it, and, after a run that stopped early, the page the \
            next run resumes after; --json prints the saved form. 'reset' forgets one manager (--manager) or \
            everything: the next run fetches it all again (and replaces the output files). 'drop --with-tables' \
            also drops the tables the run loads, in one transaction with their state (logged in _reform_schema_log).
            """,
        subcommands: [Show.self, Reset.self, Drop.self])

    /// The options both subcommands take.
    struct Where: ParsableArguments {
        @Argument(help: "The pipeline file.", completion: .file(extensions: ["yaml", "yml"]))
        var pipeline: String

        @Option(help: "The run whose outputs the state file sits beside (default: the default run).")
        var run: String?

        @Option(help: ArgumentHelp("The state file, when 'reform run' was given --state.", valueName: "PATH"), completion: .file())
        var state: String?

        @OptionGroup var load: LoadOptions

        /// The pipeline and the run options that say where its state is kept (`--run`,
        /// `--state`, the environment for a database URL), or an exit with the load error.
        func pipelineAndOptions() throws -> (Pipeline, RunOptions) {
            let loaded: Pipeline
            do { loaded = try load.loader().load(path: pipeline) } catch {
                Terminal.error(error.description)
                throw ExitCode(ExitStatus.invalid.rawValue)
            }
            if let run, loaded.run(named: run) == nil {
                let names = loaded.runs.map(\.name)
                Terminal.error(
                    "reform: error: no run called '\(run)' in \(pipeline)" + Suggestions.hint(for: run, in: names)
                        + " (runs: \(names.joined(separator: ", ")))")
                throw ExitCode(ExitStatus.usage.rawValue)
            }
            var options = RunOptions()
            options.runName = run
            options.statePath = state
            options.environment = load.environment
            return (loaded, options)
        }
    }

    /// `reform state show`.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "List the saved bookmarks per manager and partition (--json: the saved form).")

        @OptionGroup var place: Where

        @Option(help: "Only this manager.")
        var manager: String?

        @Flag(help: "Print the saved state as JSON, as it is kept (with where: state_file or state_table).")
        var json = false

        func run() throws {
            let (pipeline, options) = try place.pipelineAndOptions()
            let saved: SavedState
            do { saved = try SavedState.read(pipeline, options: options) } catch {
                Terminal.error("reform: error: \(error.description)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
            let known = saved.document["managers"]?.objectValue?.keys ?? []
            // A manager the pipeline no longer has (renamed, removed) can still be shown and forgotten.
            if let manager, pipeline.manager(named: manager) == nil, !known.contains(manager) {
                throw ValidationError("no manager '\(manager)' in \(place.pipeline) or its saved state")
            }
            let shown = manager.map { saved.only(manager: $0) } ?? saved
            if json {
                var document = shown.document
                document[saved.inTable ? "state_table" : "state_file"] = .string(saved.place)
                var bytes: [UInt8] = []
                JSON.writePretty(.object(document), into: &bytes)
                print(String(decoding: bytes, as: UTF8.self))
            } else {
                print(shown.text(), terminator: "")
            }
        }
    }

    /// `reform state reset`.
    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Forget the state of one manager, or of all of them.")

        @OptionGroup var place: Where

        @Option(help: "Only this manager (its outputs are then fetched again in full on the next run).")
        var manager: String?

        @Option(help: "Only this partition of --manager, as 'reform state show' lists it (repo=widgets).")
        var partition: String?

        func validate() throws {
            if partition != nil && manager == nil {
                throw ValidationError("--partition needs --manager: the manager whose partition to forget")
            }
        }

        func run() throws { try StateCommand.forget(manager: manager, partition: partition, place: place) }
    }

    /// `reform state drop`.
    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "drop",
            abstract: "Forget the state, and with --with-tables drop the tables the run loads, in one transaction.")

        @OptionGroup var place: Where

        @Option(help: "Only this manager's state (with --with-tables every manager's goes: the tables held all their rows).")
        var manager: String?

        @Flag(help: "Also drop the tables the run loads, with the state kept in their database, in one transaction.")
        var withTables = false

        func run() throws {
            guard withTables else { return try StateCommand.forget(manager: manager, place: place) }
            let (loaded, options) = try place.pipelineAndOptions()
            if let manager, loaded.manager(named: manager) == nil {
                throw ValidationError("no manager '\(manager)' in \(place.pipeline)")
            }
            let dropped: DroppedState?
            do { dropped = try SavedState.drop(manager: manager, withTables: true, of: loaded, options: options) } catch {
                Terminal.error("reform: error: \(error.description)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
            guard let dropped else { return }
            let tables = dropped.tables.map { "'\($0)'" }.joined(separator: ", ")
            let others = manager.map { " (not only '\($0)': the tables held every manager's rows)" } ?? ""
            Terminal.error(
                "reform: dropped table\(dropped.tables.count == 1 ? "" : "s") \(tables) and the state of every manager\(others) in "
                    + "\(dropped.place), in one transaction; the next run fetches everything into new tables")
        }
    }

    /// Forgets `manager`'s state (every manager's when `nil`), or only its `partition`, where
    /// `place` says it is kept.
    static func forget(manager: String?, partition: String? = nil, place: Where) throws {
        let (loaded, options) = try place.pipelineAndOptions()
        if let manager, let partition {
            let saved: SavedState
            do { saved = try SavedState.read(loaded, options: options) } catch {
                Terminal.error("reform: error: \(error.description)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
            let known = saved.partitions.filter { $0.manager == manager }.map(\.partition)
            guard known.contains(partition) else {
                throw ValidationError(
                    "no partition '\(partition)' of manager '\(manager)' in the saved state"
                        + (known.isEmpty
                            ? " (it has none saved)"
                            : Suggestions.hint(for: partition, in: known) + " (its partitions: \(known.joined(separator: ", ")))"))
            }
        }
        // A manager the pipeline no longer has (renamed, removed) can still be shown and forgotten.
        if let manager, loaded.manager(named: manager) == nil {
            let saved: SavedState
            do { saved = try SavedState.read(loaded, options: options) } catch {
                Terminal.error("reform: error: \(error.description)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
            guard saved.partitions.contains(where: { $0.manager == manager }) || saved.document["managers"]?.objectValue?[manager] != nil
            else {
                throw ValidationError("no manager '\(manager)' in \(place.pipeline) or its \(saved.inTable ? "state table" : "state file")")
            }
        }
        let kept: String
        do { kept = try SavedState.forget(manager: manager, partition: partition, of: loaded, options: options) } catch {
            Terminal.error("reform: error: \(error.description)")
            throw ExitCode(ExitStatus.runFailed.rawValue)
        }
        let what = partition.map { "partition '\($0)' of " } ?? ""
        Terminal.error("reform: state of \(what)\(manager.map { "manager '\($0)'" } ?? "every manager") reset in \(kept)")
    }
}
