package import ReformEngine
import ReformSDK
import ReformYAML

/// Loads test files (`NAME.test.yaml`) with the YAML loader; problems come back as the same
/// ``PipelineLoadError`` pipelines use (`file:line:column: error: …`, the line and a caret).
package struct PipelineTestLoader: Sendable {
    /// Values for `${NAME}` references in the test file.
    package var environment: [String: String]

    /// Whether golden files may lie outside the test file's folder (`--allow-outside-paths`):
    /// `--update` writes them.
    package var allowOutsidePaths: Bool

    /// A loader that resolves `${NAME}` from `environment`.
    package init(environment: [String: String], allowOutsidePaths: Bool = false) {
        self.environment = environment
        self.allowOutsidePaths = allowOutsidePaths
    }

    /// The test file at `path`, or every problem found in it.
    package func load(path: String) throws(PipelineLoadError) -> PipelineTestFile {
        func failure(_ message: String, at location: SourceLocation, source: String?) -> PipelineLoadError {
            PipelineLoadError(diagnostics: [Diagnostic(file: path, location: location, message: message)], source: source)
        }
        let bytes: [UInt8]
        do { bytes = try FilePaths.readAll(path) } catch {
            throw failure(error.description, at: SourceLocation(line: 1, column: 1), source: nil)
        }
        let source = String(decoding: bytes, as: UTF8.self)
        let documents: [YAMLNode]
        do { documents = try YAMLLoader().load(bytes, file: path) } catch {
            throw PipelineLoadError(diagnostics: error.diagnostics, source: source)
        }
        guard documents.count == 1, let root = documents.first else {
            throw failure("a test file holds one YAML document with a 'tests' list", at: SourceLocation(line: 1, column: 1), source: source)
        }
        let context = DecodingContext(file: path, environment: environment)
        let decoded = PipelineTestDecoder(context: context, folder: FilePaths.folder(of: path), allowOutsidePaths: allowOutsidePaths)
            .decode(root)
        guard let decoded, !context.hasErrors else {
            throw PipelineLoadError(diagnostics: context.diagnostics, source: source)
        }
        return decoded
    }
}
