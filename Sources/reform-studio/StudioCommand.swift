import ArgumentParser
import ReformEngine
import ReformStudio
import ReformSystem

/// `reform studio PIPELINE`: handed over by `reform` (this program has the web server; `reform`
/// stays without it).
@main
struct StudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reform studio",
        abstract: "Open a local page that shows a pipeline working: its diagnostics as you type, every page, record and step of a run.",
        discussion: """
            The page is served on 127.0.0.1 only, at the URL printed (its token is needed: keep it to \
            yourself). Runs started from it go through the engine in this process and write their outputs, \
            dead letters and state under a scratch folder (--scratch; by default a new folder in TMPDIR, \
            removed when the studio stops), \
            never over the pipeline's own outputs. Ctrl-C stops the studio.
            """)

    @Argument(help: "The pipeline file.", completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    @Option(help: "The port on 127.0.0.1 (default: any free one).")
    var port = 0

    @Flag(help: "Open the page in the desktop's browser (xdg-open).")
    var open = false

    @Option(help: ArgumentHelp("Where runs write their outputs, dead letters and state.", valueName: "FOLDER"))
    var scratch: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0 to 65535, not \(port)") }
    }

    func run() async throws {
        guard access(pipeline, R_OK) == 0 else {
            throw ValidationError("cannot read the pipeline '\(pipeline)': \(String(cString: strerror(errno)))")
        }
        // A scratch folder of its own is removed when the studio stops; one given is kept.
        let own = scratch == nil ? try ScratchFolder(prefix: "reform-studio") : nil
        defer { own?.remove() }
        let folder = scratch ?? own?.path ?? ""
        let server = StudioServer(
            pipelinePath: pipeline, port: port, scratch: folder, environment: processVariables)
        do {
            try await serve(server, folder: folder, open: open)
        } catch let error as StudioStartError {
            let line = "reform studio: error: \(error.message)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            throw ExitCode(1)
        }
    }

    /// Serves until stopped, printing the URL (and opening it, with `open`) once listening.
    private func serve(_ server: StudioServer, folder: String, open: Bool) async throws {
        try await server.run { port in
            let url = server.url(port: port)
            print("reform studio: \(url)")
            print("reform studio: runs write under \(folder)\(scratch == nil ? " (removed when it stops)" : ""); Ctrl-C stops")
            fflush(nil)
            if open {
                Task.detached { _ = ChildProcess.run(["xdg-open", url], input: [], seconds: 10) }
            }
        }
    }
}
