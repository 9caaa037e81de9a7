import ReformSystem

/// Refuses a run whose files would overwrite each other before anything is written: two outputs
/// on one file, the dead-letter file on an output, an output or the dead-letter file on an input
/// or on the pipeline itself (reliability audit D5, D6), and the same for the state file,
/// `--stats-file` and `reform test --junit` (audit M6). Files are compared as the file system
/// sees them (device and inode, so a symlink or hard link to an input counts), paths that do not
/// exist yet by their canonical form. Standard output, devices and FIFOs are never compared.
package struct PathCollisions {
    /// A file the run reads or writes, and how to name it in a message.
    package struct Role {
        /// The file's path.
        let path: String
        /// What it is to the run, for messages (`the dead-letter file`).
        let what: String

        /// `path`, named `what` in messages.
        package init(path: String, what: String) {
            self.path = path
            self.what = what
        }
    }

    /// What the run writes: outputs, then the dead-letter file, the state file, then what the
    /// caller writes after the run.
    package var writes: [Role] = []
    /// What the run reads: the pipeline and its input files.
    package var reads: [Role] = []

    /// No files yet.
    package init() {}

    /// Throws a message naming both roles of the first file used twice, ending with `unwritten`
    /// in parentheses (what the refusal kept from being written).
    package func check(unwritten: String = "nothing was written") throws(RunError) {
        var seen: [Identity: Role] = [:]
        for role in writes {
            guard let identity = Identity(role.path) else { continue }
            if let other = seen[identity] {
                throw RunError(
                    .pathCollision,
                    "\(role.path): \(role.what) and \(other.what) are the same file, so one would replace the other; "
                        + "give each its own path (\(unwritten))")
            }
            seen[identity] = role
        }
        for role in reads {
            guard let identity = Identity(role.path), let writer = seen[identity] else { continue }
            throw RunError(
                .pathCollision,
                "\(writer.path): \(writer.what) is \(role.what), which writing it would replace; "
                    + "write to another path (\(unwritten))")
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
