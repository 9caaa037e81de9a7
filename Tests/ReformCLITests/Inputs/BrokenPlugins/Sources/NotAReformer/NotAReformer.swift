import ReformSDK

/// Exports the entry points, but hands over an object that is no ReformerPlugin.
@_cdecl("reform_plugin_abi_version")
public func reformPluginABIVersion() -> Int32 { ReformPluginABI.version }

/// Some other object.
@_cdecl("reform_plugin_create")
public func reformPluginCreate() -> UnsafeMutableRawPointer { Unmanaged.passRetained(Unrelated()).toOpaque() }

/// Not a plugin.
final class Unrelated {}
