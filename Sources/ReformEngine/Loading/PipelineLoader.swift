public import ReformSDK
public import ReformYAML

/// Loads pipeline files: YAML through libyaml, then decoding and every check, into a ``Pipeline``.
///
/// ```swift
/// let pipeline = try PipelineLoader(environment: env).load(path: "Pipelines/property-list.yaml")
/// ```
public struct PipelineLoader: Sendable {
    /// Values for `${NAME}` references.
    public var environment: [String: String]
    /// Bounds on the YAML input (size, depth, alias expansion).
    public var limits: YAMLLimits
    /// Whether fixtures and `plugin_paths` may lie outside the pipeline's folder; off by default so
    /// that a pipeline cannot reach `../../etc/passwd` or follow a symlink out.
    public var allowOutsidePaths: Bool
    /// Reformer plugins the program provides in process: a pipeline's `plugin: NAME` takes the one
    /// whose `name` is `NAME` before looking for a library, with its `options:`
    /// checked the same way. A program that embeds Reform registers its Swift reformers here
    /// instead of building them as `.so` plugins.
    ///
    /// ```swift
    /// var loader = PipelineLoader(environment: [:])
    /// loader.plugins = [ShoutPlugin()]
    /// let pipeline = try loader.load(path: "pipeline.yaml")   // reformers: { loud: { plugin: Shout } }
    /// ```
    public var plugins: [any ReformerPlugin]

    /// A loader that resolves `${NAME}` from `environment`.
    public init(
        environment: [String: String], limits: YAMLLimits = .default, allowOutsidePaths: Bool = false,
        plugins: [any ReformerPlugin] = []
    ) {
        self.environment = environment
        self.limits = limits
        self.allowOutsidePaths = allowOutsidePaths
        self.plugins = plugins
    }

    /// The checked pipeline in the file at `path`, or every problem found in it.
    public func load(path: String) throws(PipelineLoadError) -> Pipeline {
        let bytes: [UInt8]
        // At most the size limit plus one byte: `/dev/zero` or a 2 GB file is refused having read
        // that much, not all of it (audit r2 M12).
        do { bytes = try FilePaths.readAll(path, limit: limits.maxInputBytes) } catch {
            throw PipelineLoadError(
                diagnostics: [Diagnostic(file: path, location: SourceLocation(line: 1, column: 1), message: error.description)],
                source: nil)
        }
        if bytes.count > limits.maxInputBytes { throw tooLarge(file: path, size: FilePaths.regularFileSize(path)) }
        return try load(bytes: bytes, file: path, folder: FilePaths.folder(of: path))
    }

    /// The checked pipeline in `bytes`; `file` names it in messages and `folder` anchors its relative paths.
    public func load(bytes: [UInt8], file: String, folder: String) throws(PipelineLoadError) -> Pipeline {
        guard bytes.count <= limits.maxInputBytes else { throw tooLarge(file: file, size: nil) }
        let source = String(decoding: bytes, as: UTF8.self)
        let documents: [YAMLNode]
        do { documents = try YAMLLoader(limits: limits).load(bytes, file: file) } catch {
            throw PipelineLoadError(diagnostics: error.diagnostics, source: source)
        }
        guard documents.count == 1, let root = documents.first else {
            throw PipelineLoadError(
                diagnostics: [
                    Diagnostic(
                        file: file, location: documents.dropFirst().first?.location ?? SourceLocation(line: 1, column: 1),
                        message: documents.isEmpty
                            ? "the file is empty; a pipeline starts with 'reform: 1'"
                            : "a pipeline file holds one YAML document, not \(documents.count)")
                ],
                source: source)
        }
        let context = DecodingContext(file: file, environment: environment)
        context.noteCopies(in: root)
        let pipeline = PipelineDecoder(context: context, folder: folder, allowOutsidePaths: allowOutsidePaths, inProcessPlugins: plugins)
            .decode(root)
        guard let pipeline, !context.hasErrors else {
            throw PipelineLoadError(diagnostics: context.diagnostics, source: source)
        }
        return pipeline.with(warnings: context.diagnostics)
    }
}

extension PipelineLoader {
    /// The error for input past ``YAMLLimits/maxInputBytes``: its size when known (a regular
    /// file), else only that it is larger (a pipe, `/dev/zero`, read no further than the limit).
    fileprivate func tooLarge(file: String, size: Int?) -> PipelineLoadError {
        let limit = limits.maxInputBytes
        let what = size.map { "the input is \($0) bytes, more than the limit of \(limit)" } ?? "the input is more than \(limit) bytes"
        let message = what + " (YAMLLimits.maxInputBytes; raise it with reform --yaml-max-bytes)"
        return PipelineLoadError(
            diagnostics: [Diagnostic(file: file, location: SourceLocation(line: 1, column: 1), message: message)], source: nil)
    }
}

/// A pipeline file that cannot be used, with every diagnostic found in it.
public struct PipelineLoadError: Error, Sendable, CustomStringConvertible {
    /// Every problem, in source order.
    public let diagnostics: [Diagnostic]
    /// The file's text, for rendering source lines under each diagnostic.
    public let source: String?

    /// A failure with `diagnostics` in a file whose text is `source`.
    public init(diagnostics: [Diagnostic], source: String?) {
        self.diagnostics = DiagnosticList(diagnostics).diagnostics
        self.source = source
    }

    /// Each diagnostic with its source line and caret.
    public var description: String {
        Diagnostic.render(diagnostics, source: source)
    }
}
