import OpenAPIKit
import ReformSDK
import ReformSystem

/// What `reform init --openapi` is asked for.
package struct OpenAPIInitOptions: Sendable {
    /// Operations to take, by tag, operationId or path glob (`/repos/*/issues`); empty: every GET
    /// operation that returns a list.
    package var only: [String] = []
    /// The pipeline's name (default: from the document's title).
    package var name: String?
    /// Where the document came from (a path or URL), for the header and relative servers.
    package var source: String
    /// The command as typed, for the header.
    package var command: String

    /// Options for a document read from `source`.
    package init(source: String, command: String) {
        self.source = source
        self.command = command
    }
}

/// A pipeline made from an OpenAPI document, and what was left out.
package struct OpenAPIInitResult: Sendable {
    /// A manager written: its name, method and path, and the paging found.
    package struct Manager: Sendable {
        /// The manager's name.
        package var name: String
        /// `GET /pets`.
        package var operation: String
        /// `link`, `page`, `offset`, `cursor`, `next-url` or `none`.
        package var paging: String
        /// Where the records are (`.` for the body).
        package var records: String
        /// How many keys its reformer declares.
        package var keyCount: Int
    }

    /// The pipeline's name.
    package var name: String
    /// The pipeline.
    package var draft: PipelineDraft
    /// The managers, in document order.
    package var managers: [Manager]
    /// Operations left out, `GET /path (operationId)` and why.
    package var skipped: [(operation: String, reason: String)]
    /// How many operations use another method than GET (left out: a pipeline reads).
    package var otherMethods: Int
}

/// Turns an OpenAPI document into a pipeline: a service from its servers and security, a manager,
/// a reformer and a run per GET operation chosen. The inference rules are in docs/init.md.
package struct OpenAPIPipelineBuilder {
    let document: OpenAPI.Document
    let version: String
    let options: OpenAPIInitOptions
    let shapes: SchemaShapes

    /// A builder for `loaded`.
    package init(_ loaded: LoadedOpenAPIDocument, options: OpenAPIInitOptions) {
        document = loaded.document
        version = loaded.version
        self.options = options
        shapes = SchemaShapes(components: document.components)
    }

    /// The pipeline; throws when no operation is left to make a manager of.
    package func build() throws(InitError) -> OpenAPIInitResult {
        let name = options.name ?? Naming.kebab(document.info.title)
        var result = OpenAPIInitResult(name: name, draft: PipelineDraft(), managers: [], skipped: [], otherMethods: 0)
        var managers: [PipelineDraft.Entry] = []
        var reformers: [PipelineDraft.Entry] = []
        var runs: [PipelineDraft.Entry] = []
        var taken: Set<String> = []
        // The security scheme each manager needs (nil: none): managers that differ get services of their own.
        var schemes: [String?] = []
        for (path, item) in document.paths {
            guard let pathItem = document.components[item] else {
                result.skipped.append(("\(path.rawValue)", "its path item is a reference the document does not hold"))
                continue
            }
            for endpoint in pathItem.endpoints {
                let operation = endpoint.operation
                let label = "\(endpoint.method.rawValue) \(path.rawValue)" + (operation.operationId.map { " (\($0))" } ?? "")
                let selected = options.only.isEmpty || matches(operation, path: path.rawValue)
                guard endpoint.method == .get else {
                    if !options.only.isEmpty, selected {
                        result.skipped.append((label, "a pipeline reads: only GET operations become managers"))
                    }
                    result.otherMethods += 1
                    continue
                }
                guard selected else { continue }
                let managerName = Naming.unique(Naming.snake(operation.operationId ?? "\(path.rawValue)"), in: &taken)
                let made = manager(
                    named: managerName, service: name, path: path.rawValue, operation: operation, pathParameters: pathItem.parameters)
                switch made {
                case .failure(let reason):
                    result.skipped.append((label, reason))
                    Naming.release(managerName, from: &taken)
                case .success(let manager):
                    if manager.records == nil, options.only.isEmpty {
                        result.skipped.append(
                            (label, "returns one object, not a list (take it with --only \(operation.operationId ?? path.rawValue))"))
                        Naming.release(managerName, from: &taken)
                        continue
                    }
                    managers.append(manager.entry)
                    reformers.append(manager.reformer)
                    runs.append(manager.run)
                    schemes.append(scheme(of: operation.security ?? document.security))
                    result.managers.append(
                        .init(
                            name: managerName, operation: "GET \(path.rawValue)", paging: manager.paging, records: manager.records ?? ".",
                            keyCount: manager.keyCount))
                }
            }
        }
        guard !managers.isEmpty else {
            let why =
                options.only.isEmpty
                ? "no GET operation of the document returns a list; choose operations with --only TAG|OPERATION_ID|PATH_GLOB"
                : "no GET operation matches --only \(options.only.joined(separator: " "))"
            throw InitError("\(options.source): \(why)")
        }
        // One service per scheme in order of first use; the managers without auth keep the plain name.
        var serviceNames: [String?: String] = [:]
        let distinct = schemes.reduce(into: [String?]()) { if !$0.contains($1) { $0.append($1) } }
        for scheme in distinct {
            let plain = distinct.count == 1 || scheme == nil || (!distinct.contains(nil) && scheme == distinct[0])
            serviceNames[scheme] = plain ? name : "\(name)-\(Naming.kebab(scheme ?? "", maxWords: 4))"
        }
        for index in managers.indices {
            guard case .block(var entries) = managers[index].content, let service = serviceNames[schemes[index]] else { continue }
            entries[0] = .init("service", .string(service))
            managers[index].content = .block(entries)
        }
        let services = distinct.map { scheme in self.service(named: serviceNames[scheme] ?? name, scheme: scheme) }
        result.draft.header = header(name: name, firstRun: result.managers[0].name, count: managers.count)
        result.draft.entries = [
            .init("reform", 1), .init("name", .string(name)),
            .init("services", block: services),
            .init("managers", block: managers), .init("reformers", block: reformers), .init("runs", block: runs),
        ]
        return result
    }

    /// The security scheme a request needs: the first by name of the first requirement (nil when
    /// there is none, or when an empty requirement makes auth optional).
    private func scheme(of requirements: [OpenAPI.SecurityRequirement]) -> String? {
        guard !requirements.contains(where: \.isEmpty) else { return nil }
        return requirements.first.flatMap { $0.keys.compactMap(\.name).sorted().first }
    }

    /// Whether `--only` names the operation: a tag, its operationId, or a glob matching its path.
    private func matches(_ operation: OpenAPI.Operation, path: String) -> Bool {
        options.only.contains { pattern in
            operation.tags?.contains(pattern) == true || operation.operationId == pattern || fnmatch(pattern, path, 0) == 0
        }
    }

    private func header(name: String, firstRun: String, count: Int) -> [String] {
        let file = "\(name).yaml"
        return [
            "Written by `\(options.command)` from \"\(document.info.title)\" \(document.info.version) "
                + "(OpenAPI \(version)): \(count) manager\(count == 1 ? "" : "s"), a reformer and a run for each.",
            "What could not be inferred is said in a comment where it applies. Next:",
            "  reform validate \(file)",
            "  reform run \(file) --run \(firstRun) --live       # ask the API",
            "  reform run \(file) --run \(firstRun) --record     # ask it and keep the pages as fixtures",
            "  reform run \(file) --run \(firstRun)              # replay the fixtures, offline",
        ]
    }
}

extension Naming {
    /// Gives `name` back to `taken` (a manager that was not written after all).
    static func release(_ name: String, from taken: inout Set<String>) { taken.remove(name) }
}
