import ReformSDK

/// The plugin ABI version this library was built against (checked by the engine before anything else).
@_cdecl("reform_plugin_abi_version")
public func reformPluginABIVersion() -> Int32 { ReformPluginABI.version }

/// The plugin object, retained for the engine.
@_cdecl("reform_plugin_create")
public func reformPluginCreate() -> UnsafeMutableRawPointer { ReformPluginABI.export(ThumbnailURLPlugin()) }
