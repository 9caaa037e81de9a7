/// Whole text files for the command line's generated files (key constants, plugin scaffolds).
public enum TextFiles {
    /// The file's text, or nil when it cannot be read.
    public static func read(_ path: String) -> String? {
        (try? FilePaths.readAll(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `text` to `path` atomically, creating missing folders.
    public static func write(_ text: String, to path: String) throws(OutputError) {
        let file = try OutputFile.atomic(path: path)
        file.buffer.append(contentsOf: text.utf8)
        try file.commit()
    }

    /// The folder part of `path` (`.` for a bare name).
    public static func folder(of path: String) -> String { FilePaths.folder(of: path) }

    /// Whether `path` is an existing folder.
    public static func isDirectory(_ path: String) -> Bool { FilePaths.isDirectory(path) }
}
