import ReformSystem

/// A temporary folder in `TMPDIR` (or `/tmp`) a run writes what nobody keeps into (a test's
/// outputs, a landing's dead letters and state), removed with everything in it afterwards.
package struct ScratchFolder {
    /// Its path.
    package let path: String

    /// A new folder, `reform-XXXXXX` (`prefix` first) in `TMPDIR` or `/tmp`.
    package init(prefix: String = "reform") throws(RunError) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array(FilePaths.resolve("\(prefix)-XXXXXX", against: base).utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } })
        else { throw RunError(.system, "cannot create a temporary folder in \(base) (errno \(errno)); set TMPDIR to a folder with room") }
        path = String(cString: made)
    }

    /// `name` inside the folder.
    package func file(_ name: String) -> String { FilePaths.resolve(name, against: path) }

    /// Removes the folder and everything in it.
    package func remove() { Self.remove(path) }

    /// Removes the folder at `path` and everything in it (a symbolic link is removed, not followed).
    package static func remove(_ path: String) {
        for name in FilePaths.contents(of: path) ?? [] {
            let child = FilePaths.resolve(name, against: path)
            if FileKind.of(child) == .directory { remove(child) } else { unlink(child) }
        }
        rmdir(path)
    }
}
