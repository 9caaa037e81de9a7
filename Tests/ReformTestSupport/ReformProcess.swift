public import Foundation

/// The `reform` executable built beside the tests, run the way a user's shell would: from the
/// project root, with a plain environment. One copy for every test target.
public enum ReformProcess {
    /// What a run printed and how it ended.
    public struct Outcome: Sendable {
        /// The exit status.
        public let status: Int32
        /// Everything written to standard output.
        public let stdout: String
        /// Everything written to standard error.
        public let stderr: String
    }

    /// SIGPIPE ignored in the test process, once: writing to a child that has exited must fail
    /// the write (EPIPE), not end the process.
    private static let brokenPipesIgnored: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// The `reform` binary beside the test bundle (SwiftPM builds both into one folder), or one
    /// folder up.
    public static let executable: String = {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            folder.appendingPathComponent("reform").path, folder.deletingLastPathComponent().appendingPathComponent("reform").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// Runs `executable` with `arguments` in `directory` (the project root by default), with
    /// `stdin` as its standard input, and waits for it on a thread of its own (see ``offPool(_:)``).
    /// Its environment is `PATH=/usr/bin:/bin`, `NO_COLOR=1`, `TMPDIR` (``Scratch/folder``), `HOME` when
    /// given, and `environment`.
    public static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], home: String? = nil,
        in directory: String = ProjectRoot.path, executable: String = executable
    ) async throws -> Outcome {
        try await offPool {
            try runBlocking(arguments, stdin: stdin, environment: environment, home: home, in: directory, executable: executable)
        }
    }

    private static func runBlocking(
        _ arguments: [String], stdin: String?, environment extra: [String: String], home: String?, in directory: String,
        executable: String
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TMPDIR": Scratch.folder]
        if let home { environment["HOME"] = home }
        for (name, value) in extra { environment[name] = value }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Standard error is drained on a thread of its own while standard output is read here:
        // read one after the other, a child writing more than a pipe holds (64 KiB) to the one not
        // being read would block forever.
        let stderrData = DrainedPipe(err)
        _ = ReformProcess.brokenPipesIgnored
        // A child that exits before reading it all closes the pipe: the write fails with EPIPE,
        // which is the child's business (its outcome says why), not the tests' (Foundation's
        // non-throwing `write(_:)` traps on it and took the whole test process down).
        if let stdin { try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData.wait(), as: UTF8.self))
    }
}

/// Runs `process` (its executable, arguments, folder and environment already set) to its end on a
/// thread of its own (see ``offPool(_:)``): how it ended and what it wrote to standard output and
/// standard error, both read as it goes. Tests run every program other than `reform` this way, so
/// that no wait for a child holds one of the concurrency pool's threads (`scripts/check-time-limits.sh`
/// refuses a `waitUntilExit()` outside a blocking helper or an `offPool` closure).
public func runToEnd(_ process: Process) async throws -> ReformProcess.Outcome {
    try await offPool {
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errors = DrainedPipe(err)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ReformProcess.Outcome(
            status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errors.wait(), as: UTF8.self))
    }
}

/// A pipe read to its end on a thread of its own.
private final class DrainedPipe: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Written by the reading thread before `done` is signalled, read after.
    private var data = Data()

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// Everything the pipe carried, once its writer has closed it.
    func wait() -> Data {
        done.wait()
        return data
    }
}

/// Runs `body` on a thread of its own and waits for it without holding a thread of the Swift
/// concurrency pool. The pool has as many threads as cores (two here); tests that sat on one while
/// a child process ran (minutes for the conformance loop and the plugin builds under a sanitizer)
/// left the async tests no thread, and their timing checks failed.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// The project root: the nearest folder above this file with `Package.swift` and `Pipelines/`.
public enum ProjectRoot {
    /// Its path.
    public static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: url.appendingPathComponent("Pipelines").path)
            {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }()
}
