import Foundation
import ReformEngine
import ReformTestSupport
import Testing

/// Damaged `.gz` inputs fail the run as unusable instead of landing part of the file
/// (reliability audit D1, D2): zlib reports a stream that ends early by returning 0 with
/// `Z_BUF_ERROR`, not with a negative count.
@Suite("Damaged gzip inputs", .timeLimit(.minutes(10)))
struct DamagedGzipTests {
    let loader = PipelineLoader(environment: [:])

    static let yaml = """
        reform: 1
        managers: { a: {} }
        reformers: { list: { keys: { id: kID }, from: { a: { id: id } } } }
        runs: { default: { reform: [list], output: { format: ndjson } } }
        """

    /// 1,000 records, compressed by Python's zlib; `cut` keeps that many bytes of the stream:
    /// `sync` cuts right after a sync flush following record 300 (a clean line boundary, the
    /// case that used to exit 0), `half` cuts in the middle, `flip` damages 60 bytes in the middle.
    func damagedFile(_ how: String, in folder: TemporaryFolder) async throws -> String {
        let path = folder.path + "/in-\(how).ndjson.gz"
        let script = """
            import sys, zlib
            lines = [('{"id":%d,"pad":"%s"}\\n' % (i, 'x' * (i % 50))).encode() for i in range(1, 1001)]
            c = zlib.compressobj(9, zlib.DEFLATED, 31)
            head = c.compress(b''.join(lines[:300])) + c.flush(zlib.Z_SYNC_FLUSH)
            whole = head + c.compress(b''.join(lines[300:])) + c.flush()
            how = sys.argv[2]
            if how == 'sync': data = head
            elif how == 'half': data = whole[:len(whole) // 2]
            else:
                middle = len(whole) // 2
                data = whole[:middle] + bytes(b ^ 0x5A for b in whole[middle:middle + 60]) + whole[middle + 60:]
            open(sys.argv[1], 'wb').write(data)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, how]
        let outcome = try await runToEnd(process)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        return path
    }

    @Test(arguments: ["sync", "half", "flip"], [1, 2])
    func aDamagedStreamFailsTheRunAndWritesNothing(how: String, jobs: Int) async throws {
        let folder = try TemporaryFolder()
        let input = try await damagedFile(how, in: folder)
        let pipeline = try loader.load(path: try folder.write("p.yaml", DamagedGzipTests.yaml))
        var options = RunOptions()
        options.inputs = [("a", input)]
        options.outputPath = folder.path + "/out.ndjson"
        options.deadLetterPath = folder.path + "/dead.ndjson"
        options.jobs = jobs
        options.batchSize = 1000
        #expect {
            try Runner(pipeline: pipeline, options: options).run()
        } throws: { error in
            "\(error)".contains("in-\(how).ndjson.gz: gzip data is damaged")
        }
        #expect(!folder.exists("out.ndjson"))
    }

    @Test(arguments: [[], [0x1F], Array("{\"id\":1}\n".utf8)])
    func aGzFileThatIsNotGzipIsAnErrorNotReadAsText(bytes: [UInt8]) throws {
        let folder = try TemporaryFolder()
        let input = folder.path + "/in.ndjson.gz"
        FileManager.default.createFile(atPath: input, contents: Data(bytes))
        let pipeline = try loader.load(path: try folder.write("p.yaml", DamagedGzipTests.yaml))
        var options = RunOptions()
        options.inputs = [("a", input)]
        options.outputPath = folder.path + "/out.ndjson"
        options.deadLetterPath = folder.path + "/dead.ndjson"
        #expect {
            try Runner(pipeline: pipeline, options: options).run()
        } throws: { error in
            "\(error)".contains("in.ndjson.gz: is not gzip data (it does not start with the gzip bytes 1f 8b")
        }
        #expect(!folder.exists("out.ndjson") && !folder.exists("dead.ndjson"))
    }

    @Test func theTruncationIsNamedAsSuch() async throws {
        let folder = try TemporaryFolder()
        let input = try await damagedFile("sync", in: folder)
        let pipeline = try loader.load(path: try folder.write("p.yaml", DamagedGzipTests.yaml))
        var options = RunOptions()
        options.inputs = [("a", input)]
        options.outputPath = folder.path + "/out.ndjson"
        #expect {
            try Runner(pipeline: pipeline, options: options).run()
        } throws: { error in
            "\(error)".contains("the compressed data ends early (a truncated file?)")
        }
    }
}
