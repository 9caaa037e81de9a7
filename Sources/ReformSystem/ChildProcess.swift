/// A program run to its end with bytes on its standard input and both outputs collected, within a
/// time limit: what a secrets command (`secrets: { command: … }`) is.
public enum ChildProcess {
    /// How a run ended.
    public struct Outcome: Sendable {
        /// The exit status (128 + the signal when a signal ended it).
        public let status: Int32
        /// What it wrote to standard output.
        public let stdout: [UInt8]
        /// What it wrote to standard error.
        public let stderr: [UInt8]
    }

    /// Why it could not be run to its end.
    public enum Failure: Error, Sendable {
        /// It could not be started (`posix_spawn`'s error).
        case cannotStart(String)
        /// It did not end within the limit, and was killed.
        case timedOut
    }

    /// Runs `arguments[0]` (a path, or a name looked up in `PATH`) with `arguments`, `input` on its
    /// standard input, its outputs collected, and kills it after `seconds`. Signals are at their
    /// defaults in the child, whatever this process blocks or handles; it runs in a process group
    /// of its own, all of which is killed at the limit.
    public static func run(_ arguments: [String], input: [UInt8], seconds: Double) -> Result<Outcome, Failure> {
        guard !arguments.isEmpty else { return .failure(.cannotStart("no command")) }
        var toChild: [Int32] = [-1, -1]
        var fromOut: [Int32] = [-1, -1]
        var fromErr: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0, pipe(&fromOut) == 0, pipe(&fromErr) == 0 else {
            for fd in toChild + fromOut + fromErr where fd >= 0 { close(fd) }
            return .failure(.cannotStart("cannot make pipes (errno \(errno))"))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromOut[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fromErr[1], 2)
        for fd in toChild + fromOut + fromErr { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own: a command that times out is killed with whatever it started
        // (a shell's `sleep`), which would otherwise hold the pipes open.
        posix_spawnattr_setpgroup(&attributes, 0)
        ChildProcess.startWithDefaultSignals(&attributes, [SIGINT, SIGTERM, SIGHUP, SIGPIPE], flags: Int32(POSIX_SPAWN_SETPGROUP))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        var spawned = posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, processEnvironment)
        // ETXTBSY: the program was just written, and a process forked meanwhile (by another thread,
        // between its fork and its exec) still holds the file open for writing. That lasts a
        // moment: try again a few times, as Go's and other launchers do.
        var tries = 0
        while spawned == ETXTBSY, tries < 50 {
            tries += 1
            usleep(10_000)
            spawned = posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, processEnvironment)
        }
        close(toChild[0])
        close(fromOut[1])
        close(fromErr[1])
        guard spawned == 0 else {
            close(toChild[1])
            close(fromOut[0])
            close(fromErr[0])
            return .failure(.cannotStart(String(cString: strerror(spawned))))
        }
        // The input is small (a list of names): written whole, then closed, before reading.
        _ = fcntl(toChild[1], F_SETFL, fcntl(toChild[1], F_GETFL) | O_NONBLOCK)
        var written = 0
        var outputs: [[UInt8]] = [[], []]
        var open = [fromOut[0], fromErr[0]]
        let deadline = ChildProcess.now() + seconds
        var timedOut = false
        while written < input.count || open.contains(where: { $0 >= 0 }) {
            let left = deadline - ChildProcess.now()
            guard left > 0 else {
                timedOut = true
                break
            }
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if written < input.count { polled.append(pollfd(fd: toChild[1], events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&polled, nfds_t(polled.count), Int32(min(left, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { break }
            for index in 0..<2 where open[index] >= 0 && polled[index].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { read(open[index], $0.baseAddress, $0.count) }
                if count > 0 {
                    outputs[index] += chunk[..<count]
                } else if count == 0 || errno != EINTR && errno != EAGAIN {
                    close(open[index])
                    open[index] = -1
                }
            }
            if written < input.count, let last = polled.last, last.fd == toChild[1], last.revents != 0 {
                let count = input.withUnsafeBytes { write(toChild[1], $0.baseAddress.map { $0 + written }, input.count - written) }
                if count > 0 { written += count } else if errno != EAGAIN && errno != EINTR { written = input.count }
                if written >= input.count {
                    close(toChild[1])
                    toChild[1] = -1
                }
            }
            if written >= input.count, toChild[1] >= 0 {
                close(toChild[1])
                toChild[1] = -1
            }
        }
        if toChild[1] >= 0 { close(toChild[1]) }
        for fd in open where fd >= 0 { close(fd) }
        if timedOut { kill(-child, SIGKILL) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        if timedOut { return .failure(.timedOut) }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as functions.
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return .success(Outcome(status: code, stdout: outputs[0], stderr: outputs[1]))
    }

    /// Seconds of the monotonic clock.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Sets `attributes` so that the child starts with no signal blocked and `signals` at their
    /// default actions, whatever the parent blocks or handles (a test thread blocks SIGTERM and
    /// SIGINT, and a child inherits the mask), with `flags` set too.
    public static func startWithDefaultSignals(_ attributes: inout posix_spawnattr_t, _ signals: [Int32], flags: Int32 = 0) {
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in signals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | flags))
    }
}
