import ReformSDK
import ReformSystem

/// The dead-letter file: one NDJSON line per rejected record, with where it came from and why.
///
/// ```json
/// {"manager":"zufang","sequence":17,"input":"zufang.ndjson:17","stage":"property-list","code":"missing-field","reason":"…","record":{…}}
/// ```
/// The file is created on the first rejection, written atomically, and committed even when the
/// run fails later or is interrupted, so nothing rejected is ever lost. The file at the path
/// always describes the last run: a dead-letter file an earlier run left there is moved aside to
/// `PATH.1` (an older `PATH.1` to `PATH.2`, and so on, the last ``kept`` runs' files kept), by
/// the first rejection of a run that rejects records (and again as it puts its own in place, when
/// another run put one there meanwhile) and by the end of one that rejects none — never deleted.
final class DeadLetter {
    let path: String
    private var file: OutputFile?
    private(set) var count = 0
    /// Where this run moved the dead-letter file an earlier run left at ``path``, if it did.
    private(set) var movedEarlier: String?
    /// How many earlier runs' dead-letter files are kept beside the last one (`PATH.1` … `PATH.10`).
    static let kept = 10

    init(path: String) {
        self.path = path
    }

    func add(manager: String, sequence: Int, input: String?, stage: String, error: RecordError, record: Value?, text: String? = nil)
        throws(OutputError)
    {
        if file == nil {
            try moveEarlierAside()
            file = try OutputFile.atomic(path: path, keepsPartialOnInterrupt: true)
        }
        guard let file else { return }
        var entry = Object(minimumCapacity: 8)
        entry.appendNew(key: "manager", value: .string(manager))
        entry.appendNew(key: "sequence", value: .int(sequence))
        if let input { entry.appendNew(key: "input", value: .string(input)) }
        entry.appendNew(key: "stage", value: .string(stage))
        entry.appendNew(key: "code", value: .string(error.code))
        entry.appendNew(key: "reason", value: .string(error.message))
        if let record { entry.appendNew(key: "record", value: record) }
        if let text { entry.appendNew(key: "text", value: .string(text)) }
        JSON.write(.object(entry), into: &file.buffer)
        file.buffer.append(UInt8(ascii: "\n"))
        count += 1
        try file.flushIfFull()
    }

    func commit() throws(OutputError) {
        // Another run may have put its dead letters at the path meanwhile: they are moved aside too.
        if let file, file.isPending { try moveEarlierAside() }
        try file?.commit()
    }

    /// Moves the dead-letter file an earlier run left at ``path`` aside, when this run rejected
    /// nothing (so the path describes this run: nothing rejected) — and the temporary file of a
    /// killed run with it.
    func moveEarlierAsideIfClean() {
        guard file == nil else { return }
        OutputFile.removeStaleTemporaries(beside: path)
        try? moveEarlierAside()
    }

    /// Moves the dead-letter file an earlier run left at ``path`` to `PATH.1`, the older ones one
    /// number up (the oldest past ``kept`` is the one dropped). Only a regular file that starts
    /// like one this class writes is moved: another file at the path is left for the write to
    /// refuse or replace as any output would be.
    private func moveEarlierAside() throws(OutputError) {
        guard OutputFile.descriptorPath(path) == nil, DeadLetter.looksLikeOne(path) else { return }
        for generation in stride(from: DeadLetter.kept - 1, through: 1, by: -1) {
            let older = path + ".\(generation)"
            guard FilePaths.isFile(older) else { continue }
            if rename(older, path + ".\(generation + 1)") != 0 {
                throw OutputError(path: older, message: "cannot move an earlier dead-letter file aside: \(OutputFile.systemError())")
            }
        }
        if rename(path, path + ".1") != 0 {
            throw OutputError(path: path, message: "cannot move the earlier dead-letter file aside: \(OutputFile.systemError())")
        }
        movedEarlier = path + ".1"
    }

    /// Whether `path` is a regular file that starts as a dead-letter file does.
    private static func looksLikeOne(_ path: String) -> Bool {
        guard FilePaths.isFile(path) else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        var head = [UInt8](repeating: 0, count: 12)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        close(fd)
        return n == 12 && head == Array(#"{"manager":""#.utf8)
    }
}
