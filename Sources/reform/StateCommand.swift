import ArgumentParser
import ReformEngine
import ReformSDK

/// `reform state`: what the incremental managers of a pipeline remember between runs.
struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Show or reset what a pipeline's incremental managers remember between runs.",
        discussion: """
            The state file is .NAME.reform-state.json beside the run's first output file (or --state PATH, \
            as given to 'reform run'). 'show' prints each manager's bookmark per partition, the outputs it \
            describes and, after a run that stopped early, the checkpoint the next run resumes from. \
            'reset' forgets one manager (--manager) or everything: the next run fetches it all again and \
            replaces the outputs.
            """,
        subcommands: [Show.self, Reset.self])

    /// The options both subcommands take.
    struct Where: ParsableArguments {
        @Argument(help: "The pipeline file.", completion: .file(extensions: ["yaml", "yml"]))
        var pipeline: String

        @Option(help: "The run whose outputs the state file sits beside (default: the default run).")
        var run: String?

        @Option(help: ArgumentHelp("The state file, when 'reform run' was given --state.", valueName: "PATH"), completion: .file())
        var state: String?

        @OptionGroup var load: LoadOptions

        /// The state file and the pipeline, or an exit with the load error.
        func store() throws -> (StateStore, Pipeline) {
            let (path, loaded) = try statePath()
            do { return (try StateStore.load(path: path), loaded) } catch {
                Terminal.error("reform: error: \(error.description)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
        }

        /// The state file's path and the pipeline, or an exit with the load error.
        func statePath() throws -> (String, Pipeline) {
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
            return (StateStore.path(of: loaded, options: options), loaded)
        }
    }

    /// `reform state show`.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print the saved state as JSON.")

        @OptionGroup var place: Where

        @Option(help: "Only this manager.")
        var manager: String?

        func run() throws {
            let (store, pipeline) = try place.store()
            // A manager the pipeline no longer has (renamed, removed) can still be shown and forgotten.
            if let manager, pipeline.manager(named: manager) == nil, !store.managers.contains(manager) {
                throw ValidationError("no manager '\(manager)' in \(place.pipeline) or its state file")
            }
            var document = store.document
            if let manager {
                document = ["managers": .object([manager: document["managers"]?.objectValue?[manager] ?? .object(Object())])]
            }
            document["state_file"] = .string(store.path)
            var bytes: [UInt8] = []
            JSON.writePretty(.object(document), into: &bytes)
            print(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// `reform state reset`.
    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Forget the state of one manager, or of all of them.")

        @OptionGroup var place: Where

        @Option(help: "Only this manager (its outputs are then fetched again in full on the next run).")
        var manager: String?

        func run() throws {
            // Forgetting everything needs nothing of the old file (which may be damaged or edited).
            var store: StateStore
            let pipeline: Pipeline
            if manager == nil {
                let (path, loaded) = try place.statePath()
                (store, pipeline) = (StateStore(path: path), loaded)
            } else {
                (store, pipeline) = try place.store()
            }
            // A manager the pipeline no longer has (renamed, removed) can still be shown and forgotten.
            if let manager, pipeline.manager(named: manager) == nil, !store.managers.contains(manager) {
                throw ValidationError("no manager '\(manager)' in \(place.pipeline) or its state file")
            }
            store.reset(manager: manager)
            do { try store.save() } catch {
                Terminal.error("reform: error: \(error.description)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
            Terminal.error("reform: state of \(manager.map { "manager '\($0)'" } ?? "every manager") reset in \(store.path)")
        }
    }
}
