import Foundation
import ReformSystem
import ReformTestSupport
import Synchronization
import Testing

/// `reform run --watch`: runs again when the pipeline or its input changes, waits through a broken
/// pipeline for the next change, and stops on Ctrl-C with 130.
@Suite("reform run --watch", .timeLimit(.minutes(10)))
struct WatchTests {
    static let pipeline = """
        reform: 1
        name: homes
        managers: { rent: {} }
        reformers:
          listing: { keys: { id: kId }, map: { id: id } }
        runs:
          default: { reform: [listing], output: { path: out.ndjson } }
        """

    /// Waits (polling, for at most 30 s) until `condition` holds.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<600 {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    @Test func runsAgainOnEachChangeAndStopsOnCtrlC() async throws {
        let folder = NSTemporaryDirectory() + "reform-watch-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        @Sendable func write(_ name: String, _ text: String) throws {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        @Sendable func output() -> String { (try? String(contentsOfFile: folder + "/out.ndjson", encoding: .utf8)) ?? "" }
        try write("p.yaml", Self.pipeline)
        try write("rent.ndjson", "{\"id\": 1}\n")
        let errors = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ReformProcess.executable)
        process.arguments = ["run", "p.yaml", "--watch", "--input", "rent=rent.ndjson"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TMPDIR": Scratch.folder]
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let outcome = try await offPool { () -> (status: Int32, stderr: String, outputs: [String]) in
            var outputs: [String] = []
            _ = Self.eventually { output() == "{\"kId\":1}\n" }
            outputs.append(output())
            try write("rent.ndjson", "{\"id\": 1}\n{\"id\": 2}\n")
            _ = Self.eventually { output() == "{\"kId\":1}\n{\"kId\":2}\n" }
            outputs.append(output())
            // A broken pipeline fails that run; the next edit mends it.
            try write("p.yaml", Self.pipeline.replacingOccurrences(of: "keys: { id: kId }", with: "keys: { id: kId "))
            usleep(600_000)
            try write("p.yaml", Self.pipeline.replacingOccurrences(of: "kId", with: "kID"))
            _ = Self.eventually { output() == "{\"kID\":1}\n{\"kID\":2}\n" }
            outputs.append(output())
            process.interrupt()
            process.waitUntilExit()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (process.terminationStatus, stderr, outputs)
        }
        #expect(outcome.outputs == ["{\"kId\":1}\n", "{\"kId\":1}\n{\"kId\":2}\n", "{\"kID\":1}\n{\"kID\":2}\n"])
        #expect(outcome.status == 130)
        #expect(outcome.stderr.contains("reform: watching p.yaml, rent.ndjson for changes (Ctrl-C stops)"))
        #expect(outcome.stderr.contains("reform: rent.ndjson changed; running again"))
        #expect(outcome.stderr.contains("reform: p.yaml changed; running again"))
        #expect(outcome.stderr.contains("p.yaml:5:"), "the broken pipeline's error, at its line: \(outcome.stderr)")
    }

    @Test func testsRunAgainWhenAGoldenFileChanges() async throws {
        let folder = NSTemporaryDirectory() + "reform-watch-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/tests", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        @Sendable func write(_ name: String, _ text: String) throws {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        try write("p.yaml", Self.pipeline.replacingOccurrences(of: "output: { path: out.ndjson }", with: "output: { format: ndjson }"))
        try write("rent.ndjson", "{\"id\": 1}\n")
        try write("p.test.yaml", "tests:\n  - name: one\n    inputs: { rent: rent.ndjson }\n    expect: { output: tests/one.ndjson }\n")
        try write("tests/one.ndjson", "{\"kId\":1}\n")
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ReformProcess.executable)
        process.arguments = ["test", ".", "--watch"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TMPDIR": Scratch.folder]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The report is read as it comes, so the test knows when each round ended.
        let seen = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            seen.withLock { $0 += text }
        }
        let (status, rounds) = try await offPool { () -> (Int32, [Bool]) in
            // Each round's report comes as it ends (flushed), not when the watch stops.
            let passed = Self.eventually { seen.withLock { $0.contains("1 passed, 0 failed") } }
            try write("tests/one.ndjson", "{\"kId\":2}\n")
            let failed = Self.eventually { seen.withLock { $0.contains("0 passed, 1 failed") } }
            process.interrupt()
            process.waitUntilExit()
            return (process.terminationStatus, [passed, failed])
        }
        #expect(rounds == [true, true])
        output.fileHandleForReading.readabilityHandler = nil
        let report = seen.withLock { $0 }
        #expect(report.contains("PASS homes › one"), "\(report)")
        #expect(report.contains("FAIL homes › one"), "\(report)")
        #expect(status == 130)
    }

    @Test func aWatchCannotRecordOrReadStandardInput() async throws {
        let record = try await ReformProcess.run(["run", "Pipelines/catalog.yaml", "--watch", "--record"])
        #expect(record.status == 64)
        #expect(record.stderr.contains("--watch runs again and again; it cannot go with --record (it writes the fixtures it watches)"))
        let stdin = try await ReformProcess.run(["run", "Pipelines/property-list.yaml", "--watch", "--input", "zufang=-"])
        #expect(stdin.status == 64)
        #expect(stdin.stderr.contains("it cannot go with standard input, which is read once"))
        let update = try await ReformProcess.run(["test", "Pipelines/", "--watch", "--update"])
        #expect(update.status == 64)
        #expect(update.stderr.contains("it cannot go with --update (it writes the files it watches)"))
    }
}
