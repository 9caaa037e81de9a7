import ReformConcurrency
public import ReformSDK
import ReformSystem

/// Loads plugin libraries: `dlopen` by absolute path, ABI check, then the plugin object. A library
/// is loaded once per process and never unloaded (Swift images cannot be unloaded safely).
public enum PluginLibrary {
    private static let loaded = Guarded<[String: Result<any ReformerPlugin, PluginLoadError>]>([:])

    /// The plugin in the library at `path` (absolute), which pipelines call `name`.
    public static func load(_ path: String, name: String) throws(PluginLoadError) -> any ReformerPlugin {
        let result = loaded.withLock { cache in
            if let known = cache[path] { return known }
            let result = Result { () throws(PluginLoadError) in try open(path, name: name) }
            cache[path] = result
            return result
        }
        return try result.get()
    }

    private static func open(_ path: String, name: String) throws(PluginLoadError) -> any ReformerPlugin {
        let rebuild = "rebuild it with 'reform plugins build \(name)'"
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw PluginLoadError(.cannotOpen, plugin: name, "cannot load plugin '\(name)' from \(path): \(reason); \(rebuild)")
        }
        guard let versionSymbol = dlsym(handle, ReformPluginABI.versionSymbol),
            let createSymbol = dlsym(handle, ReformPluginABI.createSymbol)
        else {
            throw PluginLoadError(
                .missingEntryPoint, plugin: name,
                "\(path) is not a reformer plugin: it does not export '\(ReformPluginABI.versionSymbol)' and "
                    + "'\(ReformPluginABI.createSymbol)'; add the entry points file that 'reform plugins new' generates "
                    + "(see Plugins/README.md) and \(rebuild)")
        }
        let version = unsafeBitCast(versionSymbol, to: (@convention(c) () -> Int32).self)()
        guard version == ReformPluginABI.version else {
            throw PluginLoadError(
                .abiMismatch, plugin: name,
                "plugin '\(name)' (\(path)) was built against plugin ABI \(version), and this reform uses ABI "
                    + "\(ReformPluginABI.version); \(rebuild) against this ReformSDK")
        }
        let create = unsafeBitCast(createSymbol, to: (@convention(c) () -> UnsafeMutableRawPointer?).self)
        guard let raw = create() else {
            throw PluginLoadError(
                .notAReformer, plugin: name, "plugin '\(name)' (\(path)) returned nothing from '\(ReformPluginABI.createSymbol)'")
        }
        let object = Unmanaged<AnyObject>.fromOpaque(raw).takeRetainedValue()
        guard let plugin = object as? any ReformerPlugin else {
            throw PluginLoadError(
                .notAReformer, plugin: name,
                "plugin '\(name)' (\(path)) made a \(type(of: object)), which is not a ReformerPlugin; return "
                    + "'ReformPluginABI.export(YourPlugin())' from '\(ReformPluginABI.createSymbol)', and depend on the ReformSDK "
                    + "product (not a copy of its sources)")
        }
        guard plugin.name == name else {
            throw PluginLoadError(
                .notAReformer, plugin: name,
                "\(path) holds plugin '\(plugin.name)', not '\(name)'; name the plugin after its product")
        }
        return plugin
    }
}
