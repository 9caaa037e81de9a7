import ReformEngine
import ReformSystem

/// Writing to standard error and exiting with the documented codes.
enum Terminal {
    /// Errors quote text from files and servers: control characters other than line breaks and
    /// tabs are escaped, so none reaches the terminal as a command.
    static func error(_ text: String) {
        let safe = ControlEscapes.escaping(text, keepingLineBreaks: true)
        write(safe.hasSuffix("\n") ? safe : safe + "\n")
    }

    /// Writes `text` to standard error as it is.
    static func write(_ text: String) {
        let line = Array(text.utf8)
        var written = 0
        while written < line.count {
            let n = line.withUnsafeBytes { ReformSystem.write(2, $0.baseAddress.map { $0 + written }, line.count - written) }
            if n <= 0 { break }
            written += n
        }
    }

    static var environment: [String: String] { processVariables }

    static var standardErrorIsTerminal: Bool { isatty(2) == 1 }
    static var standardOutputIsTerminal: Bool { isatty(1) == 1 }

    /// Whether standard output is a pipe (`| head`, `| jq`): what is read from it often lands on
    /// the same screen as standard error.
    static var standardOutputIsPipe: Bool {
        var info = stat()
        return fstat(1, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }

    /// The terminal's width in columns, when standard output is a terminal.
    static var width: Int? {
        var size = winsize()
        guard isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// Exit codes of the `reform` command.
enum ExitStatus: Int32 {
    case ok = 0
    case runFailed = 1
    case invalid = 2
    case rejected = 3
    case usage = 64
}
