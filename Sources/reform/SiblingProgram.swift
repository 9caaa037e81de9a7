import ArgumentParser
import ReformEngine
import ReformSystem

/// A program installed beside `reform` that a command is handed over to (`reform-init`,
/// `reform-studio`): what needs Foundation or a web server lives there, so that `reform` itself
/// loads neither.
enum SiblingProgram {
    /// Replaces this process with `name` from `reform`'s own folder, run with `arguments`; on
    /// failure says what is missing and throws the run-failed status.
    static func exec(_ name: String, arguments: [String], command: String) throws -> Never {
        let program = path(of: name)
        guard access(program, X_OK) == 0 else {
            Terminal.error(
                "reform: \(program) is missing; reform \(command) needs it beside reform (reinstall, or build the \(name) product)")
            throw ExitCode(ExitStatus.runFailed.rawValue)
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, argv)
        Terminal.error("reform: cannot run \(program): \(String(cString: strerror(errno)))")
        throw ExitCode(ExitStatus.runFailed.rawValue)
    }

    /// `name` in the folder of the running `reform`.
    static func path(of name: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return name }
        let executable = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return FilePaths.folder(of: executable) + "/" + name
    }
}
