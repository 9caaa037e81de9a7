import Foundation

/// The `reform` binary built beside the tests, run as a user would from the project root.
enum ReformBinary {
    /// What a run of the binary printed and how it ended.
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Where the binary is: beside the test bundle, or one folder up.
    static var path: String {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [folder.appendingPathComponent("reform").path, folder.deletingLastPathComponent().appendingPathComponent("reform").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    /// Runs the binary with `arguments` in `directory` (the project root by default), waiting for
    /// it on a thread of its own (see ``offPool(_:)``); its environment is a plain `PATH`,
    /// `NO_COLOR` and `environment`.
    static func run(_ arguments: [String], environment: [String: String], in directory: String = ProjectRoot.path) async throws -> Outcome {
        try await offPool { try runBlocking(arguments, environment: environment, in: directory) }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String], in directory: String) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"].merging(environment) { _, b in b }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Runs `body` on a thread of its own and waits for it without holding a thread of the Swift
/// concurrency pool, which has as many threads as cores: a test blocked on a child process there
/// leaves the other tests fewer threads, and under a sanitizer none.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
