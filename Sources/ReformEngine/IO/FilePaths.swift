import ReformSystem

/// Small path helpers over POSIX calls (no Foundation on the engine's paths).
package enum FilePaths {
    /// `relative` resolved against `folder` unless it is absolute.
    package static func resolve(_ relative: String, against folder: String) -> String {
        if relative.hasPrefix("/") || folder.isEmpty { return relative }
        return folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }

    /// The folder part of `path` (`.` for a bare name).
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    package static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Whether anything (a file, a folder, a FIFO, …) is at `path`, following symbolic links.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    package static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// When the file at `path` was last modified (seconds and nanoseconds since the epoch), if it exists.
    package static func modificationTime(_ path: String) -> Double? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Double(info.modificationTime.tv_sec) + Double(info.modificationTime.tv_nsec) / 1e9
    }

    /// The names in a folder that start with `prefix`, in the folder's order: compared as bytes
    /// before a string is made, so that a folder of many thousand files costs one pass over its
    /// entries (sorting and decoding every name of a 68,000-entry folder took 70 ms).
    package static func names(in folder: String, startingWith prefix: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        let length = prefix.utf8.count
        while let entry = readdir(dir) {
            let name = entryName(entry)
            if strncmp(name, prefix, length) == 0 { names.append(String(cString: name)) }
        }
        return names
    }

    /// The names in a folder, sorted, without `.` and `..`.
    package static func contents(of folder: String) -> [String]? {
        guard let dir = opendir(folder) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = String(cString: entryName(entry))
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The name of a directory entry, read in place up to its NUL. Copying `d_name` (256 bytes)
    /// out of the entry read past a short last entry of `readdir`'s buffer, across the end of its
    /// mapping: a test run crashed there.
    private static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> UnsafePointer<CChar> {
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
        return UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self)
    }

    /// The whole file as bytes; past `limit` bytes, only the first `limit + 1` (so that a caller
    /// can refuse `/dev/zero` or a huge file having read no more than that).
    package static func readAll(_ path: String, limit: Int = .max) throws(FileReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        return try readAll(descriptor: fd, path: path, limit: limit)
    }

    /// The size of the regular file at `path`; `nil` for anything else (a pipe, a device).
    package static func regularFileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Everything standard input holds, to its end (`<stdin>` in messages); past `limit` bytes,
    /// only the first `limit + 1`.
    package static func readStandardInput(limit: Int = .max) throws(FileReadError) -> [UInt8] {
        try readAll(descriptor: 0, path: "<stdin>", limit: limit)
    }

    /// Everything left to read from `fd` up to `limit + 1` bytes; `fd` stays open and `path`
    /// names it in errors.
    private static func readAll(descriptor fd: Int32, path: String, limit: Int) throws(FileReadError) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while out.count <= limit {
            let room = limit - out.count
            let wanted = room >= chunk.count ? chunk.count : room + 1
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileReadError(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}

/// A file could not be read.
public struct FileReadError: Error, Sendable, CustomStringConvertible {
    /// The path as given.
    public let path: String
    /// The system's reason.
    public let reason: String

    /// The file at `path` could not be read, for `reason` (the system's words).
    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `cannot read PATH: reason`.
    public var description: String { "cannot read \(path): \(reason)" }
}
