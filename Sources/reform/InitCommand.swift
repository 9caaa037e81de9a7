import ArgumentParser
import ReformEngine
import ReformSystem

/// `reform init`: handed over to the `reform-init` program beside this one, which reads OpenAPI
/// documents with OpenAPIKit and so loads all of Foundation; `reform` itself stays without it.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract:
            "Write a new pipeline: from an OpenAPI document (--openapi), from one URL (--url), or an annotated starter; see 'reform init --help'."
    )

    @Argument(
        parsing: .captureForPassthrough,
        help:
            "[--openapi SPEC [--only PATTERN]... [--record [--pages N]] | --url URL [--header H]... [--bearer T] [--graphql QUERY [--variable NAME=VALUE]...] [--records PATH] [--pages N]] [--name NAME] [--output DIR] [--force]",
        completion: .custom(SiblingCompletion.initArguments)
    )
    var arguments: [String] = []

    func run() throws {
        try SiblingProgram.exec("reform-init", arguments: arguments, command: "init")
    }
}
