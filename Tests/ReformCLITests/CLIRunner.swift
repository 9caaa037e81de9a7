import Foundation
import ReformTestSupport

/// Runs the built `reform` executable the way a user's shell would, from the project root
/// (``ReformProcess``, shared with the engine's tests), with `HOME` in the temporary folder.
enum CLIRunner {
    typealias Result = ReformProcess.Outcome

    static var projectRoot: String { ProjectRoot.path }

    /// The `reform` binary beside the test bundle.
    static var executable: String { ReformProcess.executable }

    /// Runs `executable` with `arguments`, `stdin` as its input, and waits for it.
    static func run(
        _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:], executable: String = executable
    ) async throws -> Result {
        try await ReformProcess.run(
            arguments, stdin: stdin, environment: extra, home: NSTemporaryDirectory(), executable: executable)
    }
}

/// Golden files under `Snapshots/`: `RECORD_SNAPSHOTS=1 swift test --filter ReformCLITests` re-records them.
enum Snapshot {
    static let folder = CLIRunner.projectRoot + "/Tests/ReformCLITests/Snapshots"

    /// The transcript of one command: what was run, its exit status, stdout and stderr.
    static func transcript(_ arguments: [String], _ result: CLIRunner.Result, replacing: [String: String] = [:]) -> String {
        var text =
            "$ reform \(arguments.joined(separator: " "))\nexit: \(result.status)\n--- stdout\n\(result.stdout)--- stderr\n\(result.stderr)"
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
