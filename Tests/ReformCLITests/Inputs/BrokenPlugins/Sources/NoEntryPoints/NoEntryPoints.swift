/// A library with Swift code but none of the plugin entry points.
public func notAnEntryPoint() -> Int { 42 }
