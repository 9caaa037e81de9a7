public import ReformEngine
import ReformSDK
import ReformSystem

/// A temporary folder to run a pipeline in, for tests of pipelines and of programs that embed
/// Reform: write the pipeline and its fixtures or inputs, run it (live managers answered by a
/// ``ScriptedTransport``), then read the outputs and the dead-letter file back. Outputs declared
/// with a relative `path:` are written inside the folder. The folder is removed when the harness
/// goes away.
///
/// ```swift
/// let harness = try RunHarness()
/// try harness.write("pipeline.yaml", yaml)
/// let summary = try await harness.run("pipeline.yaml", transport: transport)
/// let lines = try harness.lines("out.ndjson")
/// ```
public final class RunHarness: Sendable {
    /// The folder's absolute path.
    public let folder: String

    /// A new empty folder under the system's temporary folder (`$TMPDIR`, else `/tmp`).
    public init() throws(RunError) {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/reform-harness-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw RunError(.system, "cannot create a temporary folder in \(base) (errno \(errno)); set TMPDIR to a writable folder")
        }
        folder = String(cString: made)
    }

    deinit {
        RunHarness.remove(folder)
    }

    /// `name`'s absolute path inside the folder.
    public func path(_ name: String) -> String { folder + "/" + name }

    /// Writes `text` to `name` inside the folder (its parent folders made as needed) and returns
    /// its absolute path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws(RunError) -> String {
        let target = path(name)
        var parent = ""
        for component in name.split(separator: "/").dropLast() {
            parent += "/" + component
            mkdir(folder + parent, 0o755)
        }
        guard let file = fopen(target, "wb") else {
            throw RunError(.system, "cannot write \(target) (errno \(errno))")
        }
        defer { fclose(file) }
        let bytes = Array(text.utf8)
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else {
            throw RunError(.system, "cannot write \(target) (errno \(errno))")
        }
        return target
    }

    /// The text of `name` inside the folder.
    public func read(_ name: String) throws(RunError) -> String {
        guard let file = fopen(path(name), "rb") else {
            throw RunError(.system, "cannot read \(path(name)) (errno \(errno)): did the run write it?")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The lines of `name` inside the folder, without their line feeds.
    public func lines(_ name: String) throws(RunError) -> [String] {
        try read(name).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Whether `name` exists inside the folder.
    public func exists(_ name: String) -> Bool { access(path(name), F_OK) == 0 }

    /// Loads the pipeline at `name` inside the folder; its relative paths resolve in the folder.
    public func load(_ name: String, environment: [String: String] = [:]) throws(PipelineLoadError) -> Pipeline {
        try PipelineLoader(environment: environment).load(path: path(name))
    }

    /// Runs the pipeline at `name` inside the folder with `options`, its live managers answered
    /// by `transport` when one is given; the dead-letter file goes into the folder unless
    /// `options` names another. Throws the pipeline's errors as a ``ReformEngine/RunError``.
    public func run(
        _ name: String, options: RunOptions = RunOptions(), transport: ScriptedTransport? = nil, environment: [String: String] = [:]
    ) async throws(RunError) -> RunSummary {
        try await runner(name, options: options, transport: transport, environment: environment).run()
    }

    /// The ``ReformEngine/Runner`` that ``run(_:options:transport:environment:)`` runs, for its
    /// other entry points (``ReformEngine/Runner/partitions(of:)``).
    public func runner(
        _ name: String, options: RunOptions = RunOptions(), transport: ScriptedTransport? = nil, environment: [String: String] = [:]
    ) throws(RunError) -> Runner {
        let pipeline: Pipeline
        do { pipeline = try load(name, environment: environment) } catch {
            throw RunError(.source, error.description, cause: error)
        }
        var options = options
        if let transport {
            options.mode = .live
            options.transport = transport
        }
        if options.environment.isEmpty { options.environment = environment }
        if options.deadLetterPath == nil { options.deadLetterPath = path("reform-dead-letter.ndjson") }
        if options.outputFolder == nil { options.outputFolder = folder }
        return Runner(pipeline: pipeline, options: options)
    }

    private static func remove(_ path: String) {
        guard let folder = opendir(path) else {
            unlink(path)
            return
        }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            remove(path + "/" + name)
        }
        closedir(folder)
        rmdir(path)
    }
}
