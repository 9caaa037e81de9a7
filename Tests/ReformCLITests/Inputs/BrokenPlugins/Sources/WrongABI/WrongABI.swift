import ReformSDK

/// Claims an ABI version no engine has.
@_cdecl("reform_plugin_abi_version")
public func reformPluginABIVersion() -> Int32 { 999 }

/// Never reached: the engine stops at the version.
@_cdecl("reform_plugin_create")
public func reformPluginCreate() -> UnsafeMutableRawPointer? { nil }
