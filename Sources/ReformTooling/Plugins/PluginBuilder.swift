import ReformEngine
import ReformSystem

/// Builds (and tests) plugin packages with `swift build --package-path`, printing what it runs.
package enum PluginBuilder {
    /// How to build.
    package enum Configuration: String, Sendable, CaseIterable {
        /// `swift build` (the default; `.build/debug`).
        case debug
        /// `swift build -c release` (`.build/release`).
        case release
    }

    /// Builds the package at `package` and, when `test`, runs its tests; returns the first non-zero
    /// exit status, or 0.
    package static func build(package: String, configuration: Configuration, test: Bool) -> Int32 {
        var steps = [["swift", "build", "--package-path", package] + (configuration == .release ? ["-c", "release"] : [])]
        if test { steps.append(["swift", "test", "--package-path", package]) }
        for arguments in steps {
            Self.announce(arguments)
            let status = run(arguments)
            if status != 0 { return status }
        }
        return 0
    }

    private static func announce(_ arguments: [String]) {
        let line = "$ " + arguments.joined(separator: " ") + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    /// Runs `arguments` with the inherited standard streams; `swift` falls back to /opt/swift when
    /// not on PATH. Returns the exit status (127 when it cannot start).
    static func run(_ arguments: [String]) -> Int32 {
        var status = spawn(arguments)
        if status == nil, arguments.first == "swift" {
            status = spawn(["/opt/swift/usr/bin/swift"] + arguments.dropFirst())
        }
        return status ?? 127
    }

    private static func spawn(_ arguments: [String]) -> Int32? {
        var argv = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        var pid = pid_t()
        guard posix_spawnp(&pid, arguments[0], nil, nil, argv, processEnvironment) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import as functions.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
