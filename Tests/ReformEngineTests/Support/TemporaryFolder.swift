import Foundation
import ReformTestSupport

/// A fresh folder in the test process's scratch folder (``Scratch``), for tests that write files.
struct TemporaryFolder {
    let path: String

    init() throws {
        path = Scratch.path("folder")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` inside the folder (creating sub-folders) and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let full = path + "/" + name
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
        return full
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: path + "/" + name, encoding: .utf8)
    }

    func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + name)
    }
}
