import ArgumentParser

/// `reform studio`: handed over to the `reform-studio` program beside this one, which serves the
/// page with Hummingbird; `reform` itself stays without a web server.
struct StudioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Open a local page that shows a pipeline working: diagnostics as you type, every page, record and step of a run."
    )

    @Argument(
        parsing: .captureForPassthrough, help: "PIPELINE [--port N] [--open] [--scratch FOLDER]; see 'reform studio --help'.",
        completion: .custom(SiblingCompletion.studioArguments))
    var arguments: [String] = []

    func run() throws {
        try SiblingProgram.exec("reform-studio", arguments: arguments, command: "studio")
    }
}
