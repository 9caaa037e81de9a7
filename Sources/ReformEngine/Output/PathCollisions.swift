#if canImport(Glibc)
import Glibc
#endif

/// Refuses a run whose files would overwrite each other before anything is written: two outputs
/// on one file, the dead-letter file on an output, an output or the dead-letter file on an input
/// or on the pipeline itself (reliability audit D5, D6). Files are compared as the file system
/// sees them (device and inode, so a symlink or hard link to an input counts), paths that do not
/// exist yet by their canonical form. Standard output, devices and FIFOs are never compared.
struct PathCollisions {
    /// A file the run reads or writes, and how to name it in a message.
    struct Role {
        let path: String
        let what: String
    }

    /// What the run writes: outputs, then the dead-letter file.
    var writes: [Role] = []
    /// What the run reads: the pipeline and its input files.
    var reads: [Role] = []

    /// Throws a message naming both roles of the first file used twice.
    func check() throws(RunError) {
        var seen: [Identity: Role] = [:]
        for role in writes {
            guard let identity = Identity(role.path) else { continue }
            if let other = seen[identity] {
                throw RunError(
                    .pathCollision,
                    "\(role.path): \(role.what) and \(other.what) are the same file, so one would replace the other; "
                        + "give each its own path (nothing was written)")
            }
            seen[identity] = role
        }
        for role in reads {
            guard let identity = Identity(role.path), let writer = seen[identity] else { continue }
            throw RunError(
                .pathCollision,
                "\(writer.path): \(writer.what) is \(role.what), which writing it would replace; "
                    + "write to another path (nothing was written)")
        }
    }

    /// Who a file is: device and inode when it exists, else its canonical path.
    private enum Identity: Hashable {
        case file(dev: UInt, inode: UInt)
        case missing(String)

        /// Nil for what is not compared: standard output, descriptors, devices and FIFOs.
        init?(_ path: String) {
            guard path != "-", OutputFile.descriptorPath(path) == nil else { return nil }
            var info = stat()
            if stat(path, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
                self = .file(dev: UInt(info.st_dev), inode: UInt(info.st_ino))
            } else {
                self = .missing(FilePaths.canonical(path))
            }
        }
    }
}
