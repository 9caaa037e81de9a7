import ReformSystem

/// Reads whole files with POSIX calls, refusing files past a size limit before reading them.
enum FileReader {
    /// The bytes of the file at `path`.
    static func contents(ofFile path: String, maxBytes: Int) throws(YAMLError) -> [UInt8] {
        func failure(_ what: String) -> YAMLError {
            YAMLError(
                code: .unreadable, file: path, location: SourceLocation(line: 1, column: 1),
                message: "cannot read the file: \(what)")
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(String(cString: strerror(errno))) }
        guard (status.st_mode & S_IFMT) != S_IFDIR else { throw failure("it is a directory") }
        let size = Int(status.st_size)
        guard size <= maxBytes else {
            throw YAMLError(
                code: .inputTooLarge, file: path, location: SourceLocation(line: 1, column: 1),
                message:
                    "the file is \(size) bytes, more than the limit of \(maxBytes) (YAMLLimits.maxInputBytes; raise it with reform --yaml-max-bytes)"
            )
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > maxBytes {
                throw YAMLError(
                    code: .inputTooLarge, file: path, location: SourceLocation(line: 1, column: 1),
                    message: "the file is more than \(maxBytes) bytes (YAMLLimits.maxInputBytes; raise it with reform --yaml-max-bytes)")
            }
        }
        return bytes
    }
}
