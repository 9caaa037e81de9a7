import ReformEngine

/// Files and folders Tab offers for a path being typed, as typed (`data/or` → `data/orders.ndjson`).
enum PathCompletion {
    /// The files and folders (with a `/`) whose path starts with `prefix`; only files ending in one
    /// of `extensions` when given, only folders with `foldersOnly`. Hidden ones only when asked for
    /// (a prefix starting with `.`).
    static func matching(_ prefix: String, extensions: [String] = [], foldersOnly: Bool = false) -> [String] {
        let slash = prefix.lastIndex(of: "/")
        let folder = slash.map { String(prefix[...$0]) } ?? ""
        let start = slash.map { String(prefix[prefix.index(after: $0)...]) } ?? prefix
        let names = FilePaths.contents(of: folder.isEmpty ? "." : folder) ?? []
        return names.filter { $0.hasPrefix(start) && (!$0.hasPrefix(".") || start.hasPrefix(".")) }.sorted().compactMap { name in
            let isFolder = FilePaths.isDirectory(folder + name)
            if isFolder { return folder + name + "/" }
            if foldersOnly || (!extensions.isEmpty && !extensions.contains(where: { name.hasSuffix("." + $0) })) { return nil }
            return folder + name
        }
    }
}

/// What Tab offers after a command handed over to a program beside `reform` (`reform init`,
/// `reform studio`), whose options `reform`'s own parser does not see: the options, and after
/// one that takes a path, the paths. `StudioAndInitCompletionTests` holds the lists to the
/// programs' `--help`.
enum SiblingCompletion {
    /// What an option takes.
    enum Takes {
        case nothing, text, folder
        case file([String])
    }

    /// `reform init`'s options (reform-init).
    static let initOptions: [(name: String, takes: Takes)] = [
        ("--openapi", .file(["json", "yaml", "yml"])), ("--only", .text), ("--url", .text), ("--records", .text),
        ("--header", .text), ("--bearer", .text), ("--graphql", .file(["graphql", "gql"])), ("--variable", .text),
        ("--pages", .text), ("--record", .nothing), ("--name", .text), ("--output", .folder), ("--force", .nothing),
    ]

    /// `reform studio`'s options (reform-studio); its argument is a pipeline file.
    static let studioOptions: [(name: String, takes: Takes)] = [("--port", .text), ("--open", .nothing), ("--scratch", .folder)]

    /// `reform init`'s completions of `prefix`, the word at `index` of `words`.
    static func initArguments(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        complete(words, index, prefix, options: initOptions, argument: nil)
    }

    /// `reform studio`'s completions of `prefix`, the word at `index` of `words`.
    static func studioArguments(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        complete(words, index, prefix, options: studioOptions, argument: .file(["yaml", "yml"]))
    }

    private static func complete(
        _ words: [String], _ index: Int, _ prefix: String, options: [(name: String, takes: Takes)], argument: Takes?
    ) -> [String] {
        if index > 0, index - 1 < words.count, let option = options.first(where: { $0.name == words[index - 1] }) {
            switch option.takes {
            case .nothing: break
            case .text: return []
            case .folder: return PathCompletion.matching(prefix, foldersOnly: true)
            case .file(let extensions): return PathCompletion.matching(prefix, extensions: extensions)
            }
        }
        let names = options.map(\.name).filter { $0.hasPrefix(prefix) }
        guard !prefix.hasPrefix("-"), case .file(let extensions)? = argument else { return names }
        return PathCompletion.matching(prefix, extensions: extensions)
    }
}
