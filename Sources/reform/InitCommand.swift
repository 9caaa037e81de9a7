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
            "[--openapi SPEC [--only PATTERN]... | --url URL [--header H]... [--bearer T] [--records PATH] [--pages N]] [--name NAME] [--output DIR] [--force]"
    )
    var arguments: [String] = []

    func run() throws {
        let program = InitCommand.programPath
        guard access(program, X_OK) == 0 else {
            Terminal.error(
                "reform: \(program) is missing; reform init needs it beside reform (reinstall, or build the reform-init product)")
            throw ExitCode(ExitStatus.runFailed.rawValue)
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, argv)
        Terminal.error("reform: cannot run \(program): \(String(cString: strerror(errno)))")
        throw ExitCode(ExitStatus.runFailed.rawValue)
    }

    /// `reform-init` in the folder of the running `reform`.
    static var programPath: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "reform-init" }
        let executable = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return FilePaths.folder(of: executable) + "/reform-init"
    }
}
