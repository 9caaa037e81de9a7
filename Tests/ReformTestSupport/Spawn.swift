public import ReformSystem

/// Starts programs the way a shell does: no signals blocked (test threads block SIGTERM and
/// SIGINT, and a child inherits that mask), default handlers.
public enum Spawn {
    /// Starts `arguments[0]` with `arguments`; its standard output goes to `stdout` (a descriptor)
    /// and standard error to `stderr` when given.
    public static func start(_ arguments: [String], stdout: Int32, stderr: Int32? = nil, environment: [String]? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        ChildProcess.startWithDefaultSignals(&attributes, [SIGTERM, SIGINT])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var child: pid_t = 0
        let spawned: Int32
        if var list = envp {
            spawned = posix_spawn(&child, arguments[0], &actions, &attributes, &argv, &list)
        } else {
            spawned = posix_spawn(&child, arguments[0], &actions, &attributes, &argv, processEnvironment)
        }
        guard spawned == 0 else { throw SpawnError(description: "posix_spawn \(arguments[0]) failed: \(spawned)") }
        return child
    }

    /// Waits for `pid` and returns its exit status (128 + the signal when a signal ended it),
    /// holding the calling thread: async code awaits ``exitStatus(of:)`` instead, since a test that
    /// blocks one of the concurrency pool's two threads here can starve the test that would make
    /// the child exit (the suite hung so in stop 51).
    @available(*, noasync, message: "await Spawn.exitStatus(of:), which waits off the concurrency pool")
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Waits for `pid` on a thread of its own and returns its exit status (128 + the signal when
    /// a signal ended it).
    public static func exitStatus(of pid: pid_t) async throws -> Int32 {
        try await offPool { wait(pid) }
    }
}

/// A program that could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String
}
