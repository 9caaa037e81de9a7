import ArgumentParser
import ReformEngine
import ReformTooling

/// `reform keys`: the constant keys a pipeline's reformers emit.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List the constant keys of a pipeline's reformers, or write them as Swift constants.",
        discussion: """
            --swift prints every reformer's constants; with --output DIR it writes one file per reformer \
            (property-list -> DIR/PropertyListKeys.swift). --check FILE exits 1 when FILE differs from what \
            --swift would write for the reformer it is named after.
            """)

    @Argument(help: "The pipeline file.", completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    @OptionGroup var load: LoadOptions

    @Flag(help: "Print Swift declarations of the constants.")
    var swift = false

    @Option(help: ArgumentHelp("With --swift: write one file per reformer into this folder.", valueName: "DIR"))
    var output: String?

    @Option(help: ArgumentHelp("With --swift: fail when this generated file is out of date (repeatable).", valueName: "FILE"))
    var check: [String] = []

    func validate() throws {
        if (output != nil || !check.isEmpty) && !swift { throw ValidationError("--output and --check go with --swift") }
    }

    func run() throws {
        let loaded: Pipeline
        do { loaded = try load.loader().load(path: pipeline) } catch {
            Terminal.error(error.description)
            throw ExitCode(ExitStatus.invalid.rawValue)
        }
        guard swift else { return print(KeyConstants.listing(loaded), terminator: "") }
        let files = KeyConstants.swiftFiles(loaded)
        if !check.isEmpty { return try checkFiles(files) }
        guard let output else { return print(KeyConstants.swiftSource(loaded), terminator: "") }
        for file in files {
            let path = output.hasSuffix("/") ? output + file.name : output + "/" + file.name
            do { try TextFiles.write(file.contents, to: path) } catch {
                Terminal.error("reform: \(error)")
                throw ExitCode(ExitStatus.runFailed.rawValue)
            }
            print(path)
        }
    }

    private func checkFiles(_ files: [(name: String, contents: String)]) throws {
        var stale = false
        for path in check {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            guard let expected = files.first(where: { $0.name == name }) else {
                Terminal.error(
                    "\(path): error: no reformer of \(pipeline) has its keys in a file called \(name) "
                        + "(files: \(files.map(\.name).joined(separator: ", ")))")
                stale = true
                continue
            }
            if TextFiles.read(path) != expected.contents {
                Terminal.error(
                    "\(path):1:1: error: out of date with \(pipeline); regenerate it with "
                        + "'reform keys \(pipeline) --swift --output \(TextFiles.folder(of: path))'")
                stale = true
            }
        }
        if stale { throw ExitCode(ExitStatus.runFailed.rawValue) }
    }
}
