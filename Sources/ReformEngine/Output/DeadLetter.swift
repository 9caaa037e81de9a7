import ReformSDK

#if canImport(Glibc)
import Glibc
#endif

/// The dead-letter file: one NDJSON line per rejected record, with where it came from and why.
///
/// ```json
/// {"manager":"zufang","sequence":17,"input":"zufang.ndjson:17","stage":"property-list","code":"missing-field","reason":"…","record":{…}}
/// ```
/// The file is created on the first rejection, written atomically, and committed even when the
/// run fails later or is interrupted, so nothing rejected is ever lost. A run that rejects
/// nothing removes the dead-letter file an earlier run left at the same path, so the file always
/// describes the last run.
final class DeadLetter {
    let path: String
    private var file: OutputFile?
    private(set) var count = 0

    init(path: String) {
        self.path = path
    }

    func add(manager: String, sequence: Int, input: String?, stage: String, error: RecordError, record: Value?, text: String? = nil)
        throws(OutputError)
    {
        if file == nil { file = try OutputFile.atomic(path: path, keepsPartialOnInterrupt: true) }
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
        try file?.commit()
    }

    /// Removes the dead-letter file an earlier run left at ``path`` (a file that starts like one
    /// this class writes), when this run rejected nothing.
    func removeStale() {
        guard file == nil, FilePaths.isFile(path), OutputFile.descriptorPath(path) == nil else { return }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        var head = [UInt8](repeating: 0, count: 12)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        close(fd)
        if n == 12, head == Array(#"{"manager":""#.utf8) { unlink(path) }
    }
}
