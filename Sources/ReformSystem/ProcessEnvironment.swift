/// This process's environment, `environ`: `NAME=value` strings up to a null pointer (Darwin keeps it
/// behind `_NSGetEnviron`, as a library's code cannot see `environ` there).
public var processEnvironment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    #if canImport(Darwin)
    _NSGetEnviron()?.pointee
    #else
    environ
    #endif
}

/// This process's environment as names and values (an entry without `=` is skipped).
public var processVariables: [String: String] {
    var variables: [String: String] = [:]
    guard var pointer = processEnvironment else { return variables }
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return variables
}
