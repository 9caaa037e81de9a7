import ReformSDK
import ReformYAML

/// Turns a pipeline document's node tree into a checked ``Pipeline``, reporting every problem.
package struct PipelineDecoder {
    let context: DecodingContext
    let folder: String
    /// Every reformer name declared, including those whose declaration had errors (so that uses of
    /// them are not reported a second time as unknown).
    var declaredReformers: Set<String> = []
    /// Extra folders to look for plugins in (`plugin_paths:`), relative to the pipeline's folder.
    var pluginPaths: [String] = []
    /// Whether fixtures and plugin folders may lie outside `folder` (`--allow-outside-paths`).
    var allowOutsidePaths = false
    /// Plugins the embedding program registered (``PipelineLoader/plugins``), used before any library.
    var inProcessPlugins: [any ReformerPlugin] = []

    static let topLevelKeys = PipelineSchema.pipeline.keyNames

    func decode(_ root: YAMLNode) -> Pipeline? {
        guard let top = context.mapping(root, "the pipeline", allowed: PipelineDecoder.topLevelKeys) else { return nil }
        if let version = context.requireKey("reform", in: top, "the pipeline (the format version, 'reform: 1')") {
            if let v = context.int(version, "'reform' (the format version)"), v != 1 {
                context.error("this Reform reads pipeline format 1, not \(v)", at: version.location)
            }
        }
        let name = top["name"].flatMap { context.string($0, "'name'") } ?? ""
        let services = top["services"].map(decodeServices) ?? []
        let managers = top["managers"].map { decodeManagers($0, services: services) } ?? []
        if top["managers"] == nil {
            context.error("the pipeline declares no managers; add a 'managers:' section", at: root.location)
        }
        var decoder = self
        decoder.pluginPaths =
            top["plugin_paths"].flatMap { node in
                context.stringList(node, "'plugin_paths'").map { paths in
                    paths.filter { path in
                        if path == "~" || path.hasPrefix("~/") {
                            context.error(
                                "'\(path)' in 'plugin_paths': '~' is not expanded here (paths are relative to the pipeline's folder); "
                                    + "for a folder in your home, set \(PluginSearchPath.environmentVariable)=\(path) in the shell instead",
                                at: node.location)
                            return false
                        }
                        return containedPath(path, "a folder in 'plugin_paths'", at: node.location) != nil
                    }
                }
            } ?? []
        if let node = top["reformers"], case .mapping(let pairs) = node.content {
            decoder.declaredReformers = Set(
                pairs.compactMap { pair -> String? in
                    if case .scalar(let s) = pair.key.content { return s.text }
                    return nil
                })
        }
        return decoder.decodeAll(top, root: root, name: name, services: services, managers: managers)
    }

    private func decodeAll(
        _ top: Mapping, root: YAMLNode, name: String, services: [ServicePlan], managers: [ManagerPlan]
    ) -> Pipeline? {
        let reformers = top["reformers"].map { decodeReformers($0, managers: managers) } ?? [:]
        let rowDecls = top["rows"].map { decodeRows($0, managers: managers) } ?? [:]
        let runs =
            top["runs"].map {
                decodeRuns($0, managers: managers, reformers: reformers, rows: rowDecls)
            } ?? defaultRuns(managers: managers, at: root.location)
        let secrets = top["secrets"].flatMap(decodeSecrets)
        guard !context.hasErrors else { return nil }
        var pipeline = Pipeline(
            file: context.file, folder: folder, name: name, services: services, managers: managers,
            reformers: reformers, rows: rowDecls, runs: runs)
        pipeline.secretsCommand = secrets
        return pipeline
    }

    /// Without `runs:`, one run called `default` lands every manager as raw records.
    private func defaultRuns(managers: [ManagerPlan], at location: SourceLocation) -> [RunPlan] {
        [
            RunPlan(
                name: "default", managers: managers.map(\.ref), params: [:],
                outputs: [
                    OutputPlan(
                        chain: [], rows: nil, format: nil, path: nil, keys: nil, byteOrderMark: false, table: nil, location: location)
                ],
                location: location)
        ]
    }

    /// Entries of a section mapping, with duplicate names reported.
    func namedEntries(_ node: YAMLNode, _ section: String) -> [Mapping.Entry] {
        guard let mapping = context.mapping(node, "'\(section)'", allowed: nil) else { return [] }
        var seen: [String: SourceLocation] = [:]
        var out: [Mapping.Entry] = []
        for entry in mapping.entries {
            if let first = seen[entry.key] {
                context.error(
                    "'\(entry.key)' is declared twice in '\(section)' (first at line \(first.line))", at: entry.keyLocation)
                continue
            }
            seen[entry.key] = entry.keyLocation
            out.append(entry)
        }
        return out
    }

    /// Reports a reference to an undeclared name, with a suggestion.
    func unknownReference(_ kind: String, _ name: String, known: some Sequence<String>, at location: SourceLocation) {
        let names = Array(known)
        let listing = names.isEmpty ? "none is declared" : "declared: \(names.joined(separator: ", "))"
        context.error("unknown \(kind) '\(name)'\(Suggestions.hint(for: name, in: names)) (\(listing))", at: location)
    }
}
