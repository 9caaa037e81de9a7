extension stat {
    /// When the file was last modified (`st_mtim`; `st_mtimespec` on Darwin).
    public var modificationTime: timespec {
        #if canImport(Darwin)
        st_mtimespec
        #else
        st_mtim
        #endif
    }
}

/// The kind of file at a path, as `lstat(2)` says (a symbolic link is not followed).
public enum FileKind: Sendable, Equatable {
    case regular, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, other

    /// The kind of `path`, or `nil` when it cannot be read (no such file).
    public static func of(_ path: String) -> FileKind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFSOCK: return .socket
        default: return .other
        }
    }
}
