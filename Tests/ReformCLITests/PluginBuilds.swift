import Foundation
import ReformTestSupport

/// Builds the plugin packages the tests load, once per test run, with `swift build --package-path`:
/// the shipped `Plugins/` and the deliberately broken ones in `Inputs/BrokenPlugins`.
enum PluginBuilds {
    static let shipped = ["Plugins/PropertyListReformer", "Plugins/ThumbnailURL"]
    static let broken = "Tests/ReformCLITests/Inputs/BrokenPlugins"

    /// The output of every build that failed; empty when all are built. The builds run once, on a
    /// thread of their own (see ``offPool(_:)``), whichever test asks first.
    static var failures: [String] {
        get async { await builds.value }
    }

    private static let builds = Task {
        (try? await offPool {
            (shipped + [broken]).compactMap { package in
                let result = swiftBlocking(["build", "--package-path", package])
                return result.status == 0 ? nil : "swift build --package-path \(package) failed:\n\(result.output)"
            }
        }) ?? ["the plugin builds did not start"]
    }

    /// Runs `swift ARGUMENTS` from the project root (the toolchain on PATH, else /opt/swift), on a
    /// thread of its own.
    static func swift(_ arguments: [String], in folder: String = CLIRunner.projectRoot) async -> (status: Int32, output: String) {
        (try? await offPool { swiftBlocking(arguments, in: folder) }) ?? (127, "the build did not start")
    }

    private static func swiftBlocking(_ arguments: [String], in folder: String = CLIRunner.projectRoot) -> (status: Int32, output: String) {
        let process = Process()
        let bundled = "/opt/swift/usr/bin/swift"
        if FileManager.default.isExecutableFile(atPath: bundled) {
            process.executableURL = URL(fileURLWithPath: bundled)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["swift"] + arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        // SwiftPM leaves an empty `TemporaryDirectory.*` in its temporary folder on every build.
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": Scratch.folder]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (127, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
