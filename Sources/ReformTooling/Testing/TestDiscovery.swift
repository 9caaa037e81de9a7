import ReformEngine

/// Finds pipelines and their test files from what `reform test` is given: pipeline files, test
/// files (`NAME.test.yaml`) and folders (searched recursively).
package struct TestDiscovery: Sendable {
    /// Test files, in the order found.
    package private(set) var testFiles: [String] = []
    /// Pipeline files, in the order found (each should have a test file).
    package private(set) var pipelines: [String] = []
    /// Paths given that do not exist.
    package private(set) var missing: [String] = []

    /// Looks at every path: a folder contributes every pipeline and test file under it.
    package init(paths: [String]) {
        for path in paths {
            if FilePaths.isDirectory(path) {
                walk(path)
            } else if FilePaths.isFile(path) {
                add(path, explicit: true)
            } else {
                missing.append(path)
            }
        }
    }

    /// Whether `path` names a test file.
    package static func isTestFile(_ path: String) -> Bool {
        path.hasSuffix(".test.yaml") || path.hasSuffix(".test.yml")
    }

    private mutating func walk(_ folder: String) {
        for name in FilePaths.contents(of: folder) ?? [] where !name.hasPrefix(".") {
            let path = FilePaths.resolve(name, against: folder)
            if FilePaths.isDirectory(path) {
                walk(path)
            } else if name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
                add(path, explicit: false)
            }
        }
    }

    private mutating func add(_ path: String, explicit: Bool) {
        if Self.isTestFile(path) {
            if !testFiles.contains(path) { testFiles.append(path) }
            return
        }
        guard explicit || Self.looksLikePipeline(path) else { return }
        if !pipelines.contains(path) { pipelines.append(path) }
        let sibling = String(path.dropLast(path.hasSuffix(".yml") ? 4 : 5)) + ".test.yaml"
        if explicit, FilePaths.isFile(sibling), !testFiles.contains(sibling) { testFiles.append(sibling) }
    }

    /// A pipeline file has a top-level `reform:` line (fixtures and other YAML files do not).
    static func looksLikePipeline(_ path: String) -> Bool {
        guard let bytes = try? FilePaths.readAll(path) else { return false }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").contains { $0.hasPrefix("reform:") }
    }
}
