import ArgumentParser

/// The `reform` command: a table of contents of the engine's entry points.
@main
struct Reform: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reform",
        abstract: "Run API managers through reformer chains declared in YAML."
    )
}
