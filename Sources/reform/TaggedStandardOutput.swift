import ReformSystem

/// `reform run --tagged-stdout`: records, dead letters and stats share standard output, one
/// tagged line each, for engines that pass only standard output back (`RDD.pipe`).
///
/// ```
/// out<TAB>{"kPropertyListDataKeyID":1,…}
/// dead<TAB>{"manager":"zufang","sequence":3,"input":"z.ndjson:3",…}
/// stats<TAB>{"seconds":0.01,…,"in":3,"out":2,"rejected":1}
/// ```
/// Every line is a tag, a tab and one compact JSON value, which never holds a raw tab or newline.
/// The `out` lines come first, as the run writes them; then the `dead` lines; then one `stats`
/// line, last, only when the run finished (its absence means the run failed).
enum TaggedStandardOutput {
    /// A private path for the run's dead letters until they are copied to standard output.
    static func deadLetterPath() -> String {
        let folder = Terminal.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return "\(folder)/.reform-tagged-dead-letter-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).ndjson"
    }

    /// Copies the dead-letter file at `path` to standard output as `dead` lines, then removes it.
    static func emitDeadLetters(from path: String) throws(TaggedOutputError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }  // nothing was rejected: the file was never made
        defer {
            close(fd)
            unlink(path)
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var atLineStart = true
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                throw TaggedOutputError(message: "cannot read the dead letters back from \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return }
            var out: [UInt8] = []
            for byte in chunk[0..<n] {
                if atLineStart { out += Array("dead\t".utf8) }
                out.append(byte)
                atLineStart = byte == 0x0A
            }
            try write(out)
        }
    }

    /// Writes the `stats` line.
    static func emitStats(_ json: String) throws(TaggedOutputError) {
        try write(Array(("stats\t" + json).utf8))
    }

    private static func write(_ bytes: [UInt8]) throws(TaggedOutputError) {
        guard StandardStreams.writeOutput(bytes) else {
            throw TaggedOutputError(message: "cannot write to standard output: \(String(cString: strerror(errno)))")
        }
    }
}

/// Standard output or the dead letters kept for it failed in `--tagged-stdout` mode.
struct TaggedOutputError: Error, CustomStringConvertible {
    /// What failed.
    let message: String
    /// The message.
    var description: String { message }
}
