import Foundation
import ReformSystem
import ReformTestSupport

/// Runs `reform` with its standard output on a pseudo-terminal, as a user's shell would: for what
/// only a terminal gets (escaped control characters). Standard error and input are the null device.
enum TerminalProcess {
    /// What `reform arguments`, run in `directory`, wrote to the terminal (line feeds as the
    /// terminal shows them, `\r\n`), and its exit status.
    static func run(_ arguments: [String], in directory: String) async throws -> (status: Int32, output: String) {
        try await offPool { try runBlocking(arguments, in: directory) }
    }

    private static func runBlocking(_ arguments: [String], in directory: String) throws -> (status: Int32, output: String) {
        // posix_openpt, grantpt, unlockpt and ptsname are not in Swift's Glibc module: their Linux
        // ioctls (TIOCSPTLCK, TIOCGPTN; macros Swift does not import) do the same.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw CocoaError(.fileNoSuchFile) }
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw CocoaError(.fileNoSuchFile)
        }
        let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard terminal >= 0 else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ReformProcess.executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TMPDIR": Scratch.folder]
        process.standardOutput = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Only the child holds the terminal now: reading ends (EIO) when it exits.
        close(terminal)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
    }
}
