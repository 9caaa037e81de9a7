/// This process's environment, `environ`: `NAME=value` strings up to a null pointer (Darwin keeps it
/// behind `_NSGetEnviron`, as a library's code cannot see `environ` there).
public var processEnvironment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    #if canImport(Darwin)
    _NSGetEnviron()?.pointee
    #else
    environ
    #endif
}
