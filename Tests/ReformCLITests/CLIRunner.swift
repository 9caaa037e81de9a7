import Foundation

/// Runs the built `reform` executable the way a user's shell would, from the project root.
struct CLIRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let projectRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The `reform` binary beside the test bundle (SwiftPM builds both into one folder).
    static let executable: String = {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidates = [folder.appendingPathComponent("reform").path]
        candidates.append(folder.deletingLastPathComponent().appendingPathComponent("reform").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// Runs `executable` with `arguments` and waits for it on a thread of its own (see ``offPool(_:)``).
    static func run(
        _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:], executable: String = executable
    ) async throws -> Result {
        try await offPool { try runBlocking(arguments, stdin: stdin, environment: extra, executable: executable) }
    }

    private static func runBlocking(
        _ arguments: [String], stdin: String?, environment extra: [String: String], executable: String
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: projectRoot)
        var environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HOME": NSTemporaryDirectory()]
        for (k, v) in extra { environment[k] = v }
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }
}

/// Runs `body` on a thread of its own and waits for it without holding a thread of the Swift
/// concurrency pool. The pool has as many threads as cores (two here); tests that sat on one while
/// a child process ran (minutes for the conformance loop and the plugin builds under a sanitizer)
/// left the async tests no thread, and their timing checks failed.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Golden files under `Snapshots/`: `RECORD_SNAPSHOTS=1 swift test --filter ReformCLITests` re-records them.
enum Snapshot {
    static let folder = CLIRunner.projectRoot + "/Tests/ReformCLITests/Snapshots"

    /// The transcript of one command: what was run, its exit status, stdout and stderr.
    static func transcript(_ arguments: [String], _ result: CLIRunner.Result, replacing: [String: String] = [:]) -> String {
        var text = "$ reform \(arguments.joined(separator: " "))\nexit: \(result.status)\n--- stdout\n\(result.stdout)--- stderr\n\(result.stderr)"
        for (from, to) in replacing.sorted(by: { $0.key.count > $1.key.count }) {
            text = text.replacingOccurrences(of: from, with: to)
        }
        return text.replacingOccurrences(of: CLIRunner.projectRoot, with: "<root>")
    }

    /// Compares `actual` with the golden file `name`, or writes it when recording.
    static func matches(_ name: String, _ actual: String) throws -> Bool {
        let path = folder + "/" + name + ".txt"
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil || !FileManager.default.fileExists(atPath: path) {
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            return ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil
        }
        return try String(contentsOfFile: path, encoding: .utf8) == actual
    }
}
