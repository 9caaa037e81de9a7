import ReformSDK
import ReformSystem

/// Writes what a live manager lands as its fixtures (`--record`): one readable exchange file per
/// page, secrets redacted; an export's result file past 64 KiB goes beside its exchange,
/// gzip-compressed (`NNN.body.csv.gz`).
///
/// Files go to a hidden folder beside the fixtures (`.NAME.recording`) and move into the fixtures
/// folder only when the run succeeds, so a failed recording leaves the old set as it was. Only
/// exchange files (the `.json`, `.yaml` and `.yml` files that replay reads) are replaced: the new
/// ones are renamed over the old, then old exchanges the new recording has no file for are
/// removed. Anything else in the folder (notes, sub-folders) stays.
package final class Recorder {
    let folder: String
    private let staging: String
    private let redact: @Sendable (String) -> String
    private var names: [String] = []
    private(set) var count = 0
    /// The largest result file recorded inside its exchange (`body_text`); a larger one goes
    /// beside it, gzip-compressed (`NNN.body.csv.gz`).
    static let inlineBodyBytes = 64 << 10

    package init(folder: String, redact: @escaping @Sendable (String) -> String) throws(OutputError) {
        let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        self.folder = trimmed
        staging = FilePaths.resolve("." + FilePaths.name(of: trimmed) + ".recording", against: FilePaths.folder(of: trimmed))
        self.redact = redact
        Recorder.removeStaging(staging)
        try OutputFile.makeFolders(for: staging)
        guard mkdir(staging, 0o755) == 0 || errno == EEXIST else {
            throw OutputError(path: staging, message: "cannot create the recording folder: \(String(cString: strerror(errno)))")
        }
    }

    /// Whether replay reads `name` as an exchange file, or as the body file one names
    /// (`NNN.body.csv.gz`, which a recording replaces along with its exchange).
    static func isExchange(_ name: String) -> Bool {
        !name.hasPrefix(".")
            && (name.hasSuffix(".json") || name.hasSuffix(".yaml") || name.hasSuffix(".yml") || isBodyFile(name))
    }

    /// Whether `name` is a recorded body file (`NNN.body.FORMAT.gz`).
    static func isBodyFile(_ name: String) -> Bool { name.contains(".body.") && name.hasSuffix(".gz") }

    /// Writes one landed page as the next exchange file (after its job's create and polls, each
    /// a file of its own).
    package func record(_ landing: Landing) throws(OutputError) {
        for step in landing.jobSteps { try write(request: step.request, response: step.response) }
        try write(request: landing.request, response: landing.response, format: landing.recordFile?.format.rawValue)
    }

    private func write(request: HTTPRequest, response: HTTPResponse, format: String? = nil) throws(OutputError) {
        count += 1
        let number = String(repeating: "0", count: max(0, 3 - String(count).count)) + String(count)
        let name = number + ".json"
        let path = FilePaths.resolve(name, against: staging)
        var bodyName: String?
        var response = response
        if let file = response.bodyFile {
            if !file.isGzip, file.byteCount <= Recorder.inlineBodyBytes {
                // A small result file stays readable in its exchange, as any body.
                response.bodyText = String(decoding: file.read(file.byteCount, at: 0), as: UTF8.self)
                response.bodyFile = nil
            } else {
                // A larger one beside the exchange, compressed: a result file can be very large.
                let body = number + ".body.\(format ?? "data").gz"
                try RecordedBody.write(file, to: FilePaths.resolve(body, against: staging), redact: redact)
                names.append(body)
                bodyName = body
            }
        }
        let exchange = ExchangeFile.value(request: request, response: response, bodyFile: bodyName, redact: redact)
        let file = try OutputFile.atomic(path: path)
        JSON.writePretty(exchange, into: &file.buffer)
        file.buffer.append(UInt8(ascii: "\n"))
        try file.commit()
        names.append(name)
    }

    /// Moves the new exchanges into the fixtures folder and removes the old ones they replace.
    package func commit() throws(OutputError) {
        guard FilePaths.isDirectory(folder) else {
            guard rename(staging, folder) == 0 else {
                throw OutputError(path: folder, message: "cannot put the new fixtures in place: \(String(cString: strerror(errno)))")
            }
            return
        }
        for name in names where rename(FilePaths.resolve(name, against: staging), FilePaths.resolve(name, against: folder)) != 0 {
            throw OutputError(path: folder, message: "cannot put the new fixture \(name) in place: \(String(cString: strerror(errno)))")
        }
        let kept = Set(names)
        for name in FilePaths.contents(of: folder) ?? [] where Recorder.isExchange(name) && !kept.contains(name) {
            let path = FilePaths.resolve(name, against: folder)
            if !FilePaths.isDirectory(path) { unlink(path) }
        }
        Recorder.removeStaging(staging)
    }

    /// Drops the unfinished recording; the old fixtures stay.
    package func abandon() { Recorder.removeStaging(staging) }

    /// Removes a staging folder: only the exchange files this class writes there, and their
    /// temporary files.
    private static func removeStaging(_ path: String) {
        guard FilePaths.isDirectory(path) else { return }
        for name in FilePaths.contents(of: path) ?? [] where isExchange(name) || name.contains(".reform-") {
            unlink(FilePaths.resolve(name, against: path))
        }
        rmdir(path)
    }
}
