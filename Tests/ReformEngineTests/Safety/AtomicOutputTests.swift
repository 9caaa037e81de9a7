import Foundation
import ReformEngine
import Testing

/// Outputs are replaced all together or not at all, through hidden temporary files that a later
/// run cleans up (reliability audit D7, D17, D24).
@Suite("Atomic outputs", .timeLimit(.minutes(10)))
struct AtomicOutputTests {
    let loader = PipelineLoader(environment: [:])

    static let yaml = """
        reform: 1
        managers: { a: {} }
        reformers: { list: { keys: { id: kID }, from: { a: { id: id } } } }
        runs:
          default:
            outputs:
              - { reform: [list], format: ndjson, path: out/a.ndjson }
              - { reform: [list], format: csv, path: out/b.csv }
          one: { reform: [list], output: { format: ndjson } }
        """

    /// Runs `one` over `in.ndjson` in `folder` into `out.ndjson`.
    func runOne(in folder: TemporaryFolder, deadLetter: String = "dead.ndjson") throws {
        let pipeline = try loader.load(path: try folder.write("p.yaml", AtomicOutputTests.yaml))
        var options = RunOptions()
        options.runName = "one"
        options.inputs = [("a", folder.path + "/in.ndjson")]
        options.outputPath = folder.path + "/out.ndjson"
        options.deadLetterPath = folder.path + "/" + deadLetter
        _ = try Runner(pipeline: pipeline, options: options).run()
    }

    @Test func aLaterOutputThatCannotBePutInPlaceLeavesEveryOutputAsItWas() throws {
        let folder = try TemporaryFolder()
        try folder.write("out/a.ndjson", "old a\n")
        try folder.write("out/b.csv", "old b\n")
        let fifo = folder.path + "/in.ndjson"
        try #require(mkfifo(fifo, 0o600) == 0)
        let pipeline = try loader.load(path: try folder.write("p.yaml", AtomicOutputTests.yaml))
        var options = RunOptions()
        options.inputs = [("a", fifo)]
        options.outputFolder = folder.path
        options.deadLetterPath = folder.path + "/dead.ndjson"
        let outcome = RunOutcome()
        let done = DispatchSemaphore(value: 0)
        let runner = Runner(pipeline: pipeline, options: options)
        Thread.detachNewThread {
            do { _ = try runner.run() } catch { outcome.set("\(error)") }
            done.signal()
        }
        // The run has made its temporary files and waits for input: now the second output's
        // target becomes a folder, which no file can be renamed over.
        let writer = open(fifo, O_WRONLY)
        try #require(writer >= 0)
        try FileManager.default.removeItem(atPath: folder.path + "/out/b.csv")
        try folder.write("out/b.csv/keep.txt", "a folder now\n")
        _ = "{\"id\":1}\n{\"id\":2}\n".withCString { write(writer, $0, strlen($0)) }
        close(writer)
        done.wait()
        let error = try #require(outcome.value)
        #expect(error.contains("out/b.csv: cannot move the finished file into place"), "\(error)")
        #expect(error.contains("the outputs already replaced were put back"), "\(error)")
        #expect(try folder.read("out/a.ndjson") == "old a\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/out").sorted() == ["a.ndjson", "b.csv"])
    }

    @Test func temporaryFilesAreHiddenAndThoseOfAKilledRunAreRemovedByTheNext() throws {
        let folder = try TemporaryFolder()
        try folder.write("in.ndjson", "{\"id\":1}\n")
        // What SIGKILL leaves: temporary files of a process that is gone (no process has pid
        // 2^22, above Linux's largest), and one of this process, which is running.
        try folder.write(".out.ndjson.reform-4194305-AbCdEf", "half")
        try folder.write(".out.ndjson.reform-\(getpid())-XyZxYz", "still being written")
        try runOne(in: folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == [".out.ndjson.reform-\(getpid())-XyZxYz", "in.ndjson", "out.ndjson", "p.yaml"])
    }

    @Test func aReplacedFileKeepsItsPermissionsAndASymlinkStaysALink() throws {
        let folder = try TemporaryFolder()
        try folder.write("in.ndjson", "{\"id\":1}\n")
        try folder.write("data/real.ndjson", "old\n")
        chmod(folder.path + "/data/real.ndjson", 0o600)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/out.ndjson", withDestinationPath: "data/real.ndjson")
        try runOne(in: folder)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.path + "/data/real.ndjson")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path + "/out.ndjson") == "data/real.ndjson")
        #expect(try folder.read("data/real.ndjson") == "{\"kID\":1}\n")
    }

    @Test func aCleanRunRemovesTheDeadLetterFileOfAnEarlierRun() throws {
        let folder = try TemporaryFolder()
        try folder.write("in.ndjson", "{\"id\":1}\n")
        try folder.write("dead.ndjson", "{\"manager\":\"a\",\"sequence\":2,\"stage\":\"input\"}\n")
        try folder.write("notes.ndjson", "{\"not\":\"a dead-letter file\"}\n")
        try runOne(in: folder, deadLetter: "dead.ndjson")
        #expect(!folder.exists("dead.ndjson"))
        try runOne(in: folder, deadLetter: "notes.ndjson")
        #expect(folder.exists("notes.ndjson"), "a file that is not a dead-letter file stays")
    }
}

/// The error a run on another thread ended with.
final class RunOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var message: String?

    func set(_ text: String) { lock.withLock { message = text } }
    var value: String? { lock.withLock { message } }
}
