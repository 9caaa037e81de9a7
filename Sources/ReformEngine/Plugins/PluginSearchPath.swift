import ReformSystem

/// Where plugins are looked for, in order, and how a plugin name becomes a library path.
///
/// Each folder in the path holds plugin packages (`Thumbnails/Package.swift`, built into
/// `Thumbnails/.build/{debug,release}/libThumbnails.so`) or built libraries (`libThumbnails.so`).
public struct PluginSearchPath: Sendable, Equatable {
    /// The folders, in the order they are searched, as absolute paths where they exist.
    public let folders: [String]

    /// The environment variable holding extra folders, separated by `:`.
    public static let environmentVariable = "REFORM_PLUGIN_PATH"

    /// Folders searched in this order: `explicit` (a pipeline's `plugin_paths`, resolved against
    /// its folder), `REFORM_PLUGIN_PATH`, then `Plugins/` in `anchor` and each folder above it,
    /// `Plugins/` in the current folder, and last the plugins installed with the program,
    /// ``installedFolder`` (those that exist).
    public init(explicit: [String] = [], environment: [String: String], anchor: String? = nil) {
        var folders = explicit
        if let extra = environment[PluginSearchPath.environmentVariable] {
            folders += extra.split(separator: ":").map(String.init)
        }
        if let anchor, var folder = PluginSearchPath.absolute(anchor) {
            while true {
                let plugins = FilePaths.resolve("Plugins", against: folder)
                if FilePaths.isDirectory(plugins) { folders.append(plugins) }
                let parent = FilePaths.folder(of: folder)
                if parent == folder || folder == "/" { break }
                folder = parent
            }
        }
        if FilePaths.isDirectory("Plugins") { folders.append("Plugins") }
        if let installed = PluginSearchPath.installedFolder, FilePaths.isDirectory(installed) { folders.append(installed) }
        var seen: Set<String> = []
        self.folders = folders.compactMap { folder in
            let absolute = PluginSearchPath.absolute(folder) ?? folder
            return seen.insert(absolute).inserted ? absolute : nil
        }
    }

    /// The library to load for the plugin `name`: the newest build of the first package called
    /// `name`, or a `libNAME.so` in a search folder.
    ///
    /// Folders that do not exist are skipped, except the explicit and environment ones, which are
    /// kept so that messages show them.
    public func library(for name: String) throws(PluginLoadError) -> String {
        guard PluginSearchPath.isValidName(name) else {
            throw PluginLoadError(
                .notFound, plugin: name,
                "'\(name)' is not a plugin name: plugin names are Swift identifiers like ThumbnailURL (the product name of the plugin package)"
            )
        }
        for folder in folders {
            let package = FilePaths.resolve(name, against: folder)
            if FilePaths.isFile(FilePaths.resolve("Package.swift", against: package)) {
                guard let built = PluginSearchPath.newestBuild(of: name, in: package) else {
                    throw PluginLoadError(
                        .notBuilt, plugin: name,
                        "plugin '\(name)' is not built yet (no .build/debug or .build/release/lib\(name).so in \(package)); "
                            + "run 'reform plugins build \(name)' or 'swift build --package-path \(package)'")
                }
                return built
            }
            let library = FilePaths.resolve("lib\(name).so", against: folder)
            if FilePaths.isFile(library) { return library }
        }
        let known = discover().map(\.name)
        throw PluginLoadError(
            .notFound, plugin: name,
            "no plugin '\(name)'\(Suggestions.hint(for: name, in: known)) "
                + (folders.isEmpty
                    ? "(no plugin folder exists: no 'plugin_paths', no \(PluginSearchPath.environmentVariable), no Plugins/ folder here or above the pipeline). "
                    : "(searched \(folders.joined(separator: ", "))). ")
                + "Create it with 'reform plugins new \(name)', or add its folder to 'plugin_paths' or \(PluginSearchPath.environmentVariable)"
        )
    }

    /// Every plugin in the search folders (the first of each name), built or not.
    public func discover() -> [DiscoveredPlugin] {
        var found: [DiscoveredPlugin] = []
        var seen: Set<String> = []
        for folder in folders {
            for entry in FilePaths.contents(of: folder) ?? [] {
                let path = FilePaths.resolve(entry, against: folder)
                if FilePaths.isFile(FilePaths.resolve("Package.swift", against: path)), PluginSearchPath.isValidName(entry),
                    seen.insert(entry).inserted
                {
                    found.append(DiscoveredPlugin(name: entry, package: path, library: PluginSearchPath.newestBuild(of: entry, in: path)))
                } else if entry.hasPrefix("lib"), entry.hasSuffix(".so"), entry != "libReformSDK.so" {
                    let name = String(entry.dropFirst(3).dropLast(3))
                    if PluginSearchPath.isValidName(name), seen.insert(name).inserted {
                        found.append(DiscoveredPlugin(name: name, package: nil, library: path))
                    }
                }
            }
        }
        return found
    }

    /// The plugins that came with the running program: `lib/reform/plugins` beside the folder of
    /// its executable (`reform-VERSION/bin/reform` of a release bundle finds
    /// `reform-VERSION/lib/reform/plugins`), searched after every other folder; `nil` when the
    /// executable's path cannot be read.
    public static let installedFolder: String? = {
        guard let executable = absolute("/proc/self/exe") else { return nil }
        let prefix = FilePaths.folder(of: FilePaths.folder(of: executable))
        return FilePaths.resolve("lib/reform/plugins", against: prefix)
    }()

    /// Whether `name` can name a plugin product: a Swift identifier.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || ("A"..."Z").contains(first) || ("a"..."z").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
    }

    /// The most recently built `libNAME.so` of the package at `package`.
    static func newestBuild(of name: String, in package: String) -> String? {
        let candidates = ["release", "debug"].map { FilePaths.resolve(".build/\($0)/lib\(name).so", against: package) }
        return candidates.compactMap { path in FilePaths.modificationTime(path).map { (path, $0) } }
            .max { $0.1 < $1.1 }?.0
    }

    /// `path` made absolute and free of symbolic links, when it exists.
    package static func absolute(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// A plugin found in a search folder.
public struct DiscoveredPlugin: Sendable, Equatable {
    /// Its name (the package folder's name, or the library's without `lib` and `.so`).
    public let name: String
    /// Its package folder, when it is a package.
    public let package: String?
    /// Its newest built library, when built.
    public let library: String?
}
