import Foundation
import ReformEngine
import ReformSDK
import ReformSystem
import Testing

/// `--jobs` workers read a plain file's batches themselves, as byte ranges: wherever a range is
/// cut, every line is landed once, in order, and a line over the limit is rejected as the single
/// worker rejects it.
@Suite("Ranged batches", .timeLimit(.minutes(10)))
struct RangedBatchTests {
    static let yaml = """
        reform: 1
        managers: { a: {} }
        reformers:
          list: { keys: { id: kID, p: kP }, from: { a: { id: id, p: "p?" } } }
        runs:
          default: { reform: [list], output: { format: ndjson } }
        """

    /// Lines around the limit of 48 bytes (at it, one over, far over), blank ones (empty, and
    /// longer than the limit: a blank line is skipped at any length), CRLF and invalid ones, ending
    /// with `last` (no newline after it).
    static func input(last: String) -> String {
        var text = ""
        for i in 1...60 {
            let line: String
            switch i % 9 {
            case 2: line = ""
            case 5:
                // Blank past the limit (spaces; spaces, tabs and carriage returns), and spaces
                // before content, which make it too long.
                let blanks = [String(repeating: " ", count: 60), String(repeating: " \t\r", count: 25)]
                line = i / 9 % 3 < 2 ? blanks[i / 9 % 3] : String(repeating: " ", count: 55) + "{}"
            case 4: line = "not json \(i)"
            case 6: line = #"{"id":\#(i),"p":"\#(String(repeating: "x", count: 120 + i))"}"#  // far over
            default:
                let head = #"{"id":\#(i),"p":""#
                // 48 bytes of content exactly, 49, and shorter.
                let width = i % 9 == 7 ? 49 : i % 9 == 8 ? 48 : 20 + i % 13
                line = head + String(repeating: "y", count: max(0, width - head.utf8.count - 2)) + #""}"#
            }
            text += line + (i % 10 == 3 ? "\r\n" : "\n")
        }
        return text + last
    }

    func run(_ input: String, name: String = "a.ndjson", jobs: Int, batchSize: Int) throws -> (RunSummary, [String: String]) {
        let folder = try TemporaryFolder()
        if name.hasSuffix(".gz") {
            try BatchRunTests().gzip(try folder.write(String(name.dropLast(3)), input))
        } else {
            _ = try folder.write(name, input)
        }
        return try BatchRunTests().run(Self.yaml, folder: folder, inputs: [("a", name)]) { options in
            options.recordLimits = JSONLimits(maximumDepth: 512, maximumDocumentSize: 48)
            options.jobs = jobs
            options.batchSize = batchSize
        }
    }

    @Test(arguments: [#"{"id":1000,"p":"last"}"#, #"{"id":1001,"p":"\#(String(repeating: "z", count: 300))"}"#, ""])
    func rangesCutAnywhereLandEveryLineOnceAsOneWorkerDoes(last: String) throws {
        let input = Self.input(last: last)
        let (single, singleFiles) = try run(input, jobs: 1, batchSize: 1 << 19)
        #expect(single.rejected > 6)
        for batchSize in [1, 2, 3, 5, 13, 49, 50, 64, 333, 1 << 19] {
            let (ranged, rangedFiles) = try run(input, jobs: 2, batchSize: batchSize)
            #expect(rangedFiles == singleFiles, "batches of \(batchSize) bytes")
            #expect(ranged.recordsIn == single.recordsIn)
            #expect(ranged.rejected == single.rejected)
            #expect(ranged.written.map(\.count) == single.written.map(\.count))
        }
    }

    /// A blank line longer than any buffer (the single reader's 1 MiB, a batch, a range) is
    /// skipped by every reader; spaces before content make a line too long in each alike.
    @Test func aBlankLineOfAnyLengthIsSkippedByEveryReader() throws {
        let blank = String(repeating: " \t", count: 700_000)
        let content = blank + String(repeating: "x", count: 1_200_000)  // past any buffer before its end
        let input = [#"{"id":1,"p":"a"}"#, blank, blank + #"{"id":2}"#, #"{"id":3}"#, content, #"{"id":4}"#, blank]
            .joined(separator: "\n")
        let (single, singleFiles) = try run(input, jobs: 1, batchSize: 1 << 19)
        #expect(single.rejected == 2)
        #expect(singleFiles["out.txt"]?.split(separator: "\n").count == 3)
        for batchSize in [1 << 16, 1 << 21] {
            for name in ["a.ndjson", "a.ndjson.gz"] {
                let (other, otherFiles) = try run(input, name: name, jobs: 2, batchSize: batchSize)
                #expect(otherFiles["out.txt"] == singleFiles["out.txt"], "\(name) in batches of \(batchSize) bytes")
                #expect(otherFiles["dead.ndjson"]?.replacingOccurrences(of: ".gz:", with: ":") == singleFiles["dead.ndjson"])
                #expect(other.rejected == single.rejected)
            }
        }
    }

    /// A file appended to while its ranges are read: a line still half written when its range
    /// is read ends the input there, as the single reader stops at the end it finds, instead of
    /// the rest of that line being skipped and the lines after it landed.
    @Test func aLineHalfWrittenWhenItsRangeIsReadEndsTheInput() throws {
        let folder = try TemporaryFolder()
        let lines = (1...6).map { #"{"id":\#($0),"p":"\#(String(repeating: "h", count: 20))"}"# }
        let head = lines.joined(separator: "\n") + "\n" + #"{"id":7,"p":""#
        let path = try folder.write("a.ndjson", head)
        // Six ranges: as many as two workers have in flight, so the batcher looks at the file's
        // size again only after the first batch is landed and progress reported.
        let batchSize = (head.utf8.count + 5) / 6
        let appender = Appender(path: path, text: #"tail"}"# + "\n" + #"{"id":8,"p":"after"}"# + "\n")
        let (summary, files) = try BatchRunTests().run(Self.yaml, folder: folder, inputs: [("a", "a.ndjson")]) { options in
            options.jobs = 2
            options.batchSize = batchSize
            options.progress = { _ in appender.appendOnce() }
        }
        #expect(appender.appended)
        let ids = (files["out.txt"] ?? "").split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }.compactMap { $0["kID"] as? Int }
        // Line 7 is landed whole (read after the append) or cut (dead-lettered); nothing after it.
        #expect(ids == Array(1...6) || ids == Array(1...7), "\(ids)")
        #expect(summary.rejected == (ids.count == 6 ? 1 : 0))
    }

    @Test func aCompressedInputReadInTurnLandsAsTheRangesDo() throws {
        let input = Self.input(last: "")
        let (_, rangedFiles) = try run(input, jobs: 2, batchSize: 13)
        let (_, streamedFiles) = try run(input, name: "a.ndjson.gz", jobs: 2, batchSize: 13)
        #expect(rangedFiles["out.txt"] == streamedFiles["out.txt"])
        #expect(rangedFiles["dead.ndjson"]?.replacingOccurrences(of: "a.ndjson:", with: "a.ndjson.gz:") == streamedFiles["dead.ndjson"])
    }

    @Test func aPipeIsReadInTurnAsItIsWritten() throws {
        let input = Self.input(last: "")
        let (_, regularFiles) = try run(input, jobs: 1, batchSize: 1 << 19)
        let folder = try TemporaryFolder()
        let fifo = folder.path + "/a.ndjson"
        try #require(mkfifo(fifo, 0o600) == 0)
        let writer = PipeWriter(path: fifo, text: input)
        writer.start()
        let (_, piped) = try BatchRunTests().run(Self.yaml, folder: folder, inputs: [("a", "a.ndjson")]) { options in
            options.recordLimits = JSONLimits(maximumDepth: 512, maximumDocumentSize: 48)
            options.jobs = 2
            options.batchSize = 64
        }
        #expect(writer.finish() == input.utf8.count)
        #expect(piped == regularFiles)
    }
}

/// Appends a text to a file once, from the first progress report of a run (its landing thread),
/// after a pause for the workers to read the ranges they were given.
private final class Appender: @unchecked Sendable {
    private let path: String
    private let text: String
    private let lock = NSLock()
    private(set) var appended = false

    init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    func appendOnce() {
        lock.lock()
        defer { lock.unlock() }
        guard !appended else { return }
        appended = true
        Thread.sleep(forTimeInterval: 0.2)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data(text.utf8))
            handle.closeFile()
        }
    }
}

/// Writes a text into a FIFO from a thread of its own (SIGPIPE blocked there: a reader that goes
/// away makes the write fail, not the test process die) and reports how many bytes it wrote.
private final class PipeWriter: @unchecked Sendable {
    private let path: String
    private let text: String
    private let done = DispatchSemaphore(value: 0)
    private var written = 0

    init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    func start() {
        Thread.detachNewThread { [self] in
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &set, nil)
            let descriptor = open(path, O_WRONLY)
            if descriptor >= 0 {
                let bytes = Array(text.utf8)
                while written < bytes.count {
                    let n = bytes.withUnsafeBytes { all in
                        ReformSystem.write(descriptor, all.baseAddress.map { $0 + written }, all.count - written)
                    }
                    if n <= 0 { break }
                    written += n
                }
                close(descriptor)
            }
            done.signal()
        }
    }

    /// Waits for the writer; the bytes it wrote.
    func finish() -> Int {
        done.wait()
        return written
    }
}
