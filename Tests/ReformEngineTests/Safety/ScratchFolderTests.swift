import Foundation
import ReformEngine
import Testing

/// A scratch folder is removed with everything in it, and nothing outside it: a symbolic link
/// inside to a folder elsewhere is removed, not followed.
@Suite(.timeLimit(.minutes(10))) struct ScratchFolderTests {
    @Test func removingItRemovesALinkInsideNotTheFolderItPointsTo() throws {
        let outside = try TemporaryFolder()
        try outside.write("keep.txt", "mine")
        let scratch = try ScratchFolder(prefix: "reform-scratch-test")
        try FileManager.default.createDirectory(atPath: scratch.file("run-1/out"), withIntermediateDirectories: true)
        try "written".write(toFile: scratch.file("run-1/out/a.ndjson"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("run-1/elsewhere"), withDestinationPath: outside.path)
        scratch.remove()
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
        #expect(try outside.read("keep.txt") == "mine", "the folder the link pointed to is untouched")
    }
}
