import Glibc
import ReformSDK

/// Writes what a live manager lands as its fixtures (`--record`): one readable exchange file per
/// page, secrets redacted. Files go to a folder beside the fixtures and replace them only when
/// the run succeeds, so a failed recording never leaves a half-replaced set.
final class Recorder {
    let folder: String
    private let staging: String
    private let redact: @Sendable (String) -> String
    private(set) var count = 0

    init(folder: String, redact: @escaping @Sendable (String) -> String) throws(OutputError) {
        self.folder = folder
        staging = folder.hasSuffix("/") ? String(folder.dropLast()) + ".recording" : folder + ".recording"
        self.redact = redact
        Recorder.removeFolder(staging)
        try OutputFile.makeFolders(for: staging + "/")
        guard mkdir(staging, 0o755) == 0 || errno == EEXIST else {
            throw OutputError(path: staging, message: "cannot create the recording folder: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes one landed page as the next exchange file.
    func record(_ landing: Landing) throws(OutputError) {
        count += 1
        let name = String(repeating: "0", count: max(0, 3 - String(count).count)) + String(count) + ".json"
        let path = FilePaths.resolve(name, against: staging)
        let exchange = ExchangeFile.value(request: landing.request, response: landing.response, redact: redact)
        let file = try OutputFile.atomic(path: path)
        JSON.writePretty(exchange, into: &file.buffer)
        file.buffer.append(UInt8(ascii: "\n"))
        try file.commit()
    }

    /// Replaces the fixtures with the new recording.
    func commit() throws(OutputError) {
        let old = staging + ".old"
        Recorder.removeFolder(old)
        if FilePaths.isDirectory(folder), rename(folder, old) != 0 {
            throw OutputError(path: folder, message: "cannot move the old fixtures aside: \(String(cString: strerror(errno)))")
        }
        guard rename(staging, folder) == 0 else {
            throw OutputError(path: folder, message: "cannot put the new fixtures in place: \(String(cString: strerror(errno)))")
        }
        Recorder.removeFolder(old)
    }

    /// Drops the unfinished recording; the old fixtures stay.
    func abandon() { Recorder.removeFolder(staging) }

    private static func removeFolder(_ path: String) {
        guard FilePaths.isDirectory(path) else { return }
        for name in FilePaths.contents(of: path) ?? [] { unlink(FilePaths.resolve(name, against: path)) }
        rmdir(path)
    }
}
