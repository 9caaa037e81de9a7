/// The binary contract between the engine and a plugin library: the ABI version and the two
/// C-named entry points every plugin exports.
///
/// A plugin exports them in one file, exactly like this:
///
/// ```swift
/// import ReformSDK
///
/// @_cdecl("reform_plugin_abi_version")
/// public func reformPluginABIVersion() -> Int32 { ReformPluginABI.version }
///
/// @_cdecl("reform_plugin_create")
/// public func reformPluginCreate() -> UnsafeMutableRawPointer { ReformPluginABI.export(ThumbnailURLPlugin()) }
/// ```
public enum ReformPluginABI {
    /// The plugin ABI this SDK defines. It is compiled into the caller (plugin or engine), so a plugin
    /// reports the version it was built against, and the engine refuses one built against another.
    /// Raise it whenever a change to the SDK breaks plugins built before it.
    @_alwaysEmitIntoClient
    public static var version: Int32 { 1 }

    /// The entry point returning the plugin's ABI version (`() -> Int32`).
    public static let versionSymbol = "reform_plugin_abi_version"

    /// The entry point returning the retained plugin object (`() -> UnsafeMutableRawPointer`).
    public static let createSymbol = "reform_plugin_create"

    /// The value `reform_plugin_create` returns: `plugin`, retained once for the engine, which keeps
    /// it for the life of the process.
    public static func export(_ plugin: some ReformerPlugin) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(plugin as AnyObject).toOpaque()
    }
}
