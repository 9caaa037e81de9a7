import ReformEngine
import ReformYAML

/// The first line of each diagnostic of loading `yaml` as `p.yaml` (its folder left out), or
/// `[]` when it loads.
func loadDiagnostics(_ yaml: String, environment: [String: String] = [:]) throws -> [String] {
    let folder = try TemporaryFolder()
    let path = try folder.write("p.yaml", yaml)
    do {
        _ = try PipelineLoader(environment: environment).load(path: path)
        return []
    } catch {
        return error.diagnostics.map { $0.description.replacing(path, with: "p.yaml") }
    }
}
