import ReformEngine
import ReformSystem

/// A temporary folder a test's run writes into, removed with everything in it afterwards.
struct TestFolder {
    let path: String

    init() throws(RunError) {
        var template = Array("/tmp/reform-test-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } })
        else { throw RunError(.system, "cannot create a temporary folder in /tmp (errno \(errno))") }
        path = String(cString: made)
    }

    /// `name` inside the folder.
    func file(_ name: String) -> String { FilePaths.resolve(name, against: path) }

    /// Removes the folder and everything in it.
    func remove() { Self.remove(path) }

    private static func remove(_ path: String) {
        for name in FilePaths.contents(of: path) ?? [] {
            let child = FilePaths.resolve(name, against: path)
            if FilePaths.isDirectory(child) { remove(child) } else { unlink(child) }
        }
        rmdir(path)
    }
}
