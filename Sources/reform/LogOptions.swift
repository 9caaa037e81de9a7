import ArgumentParser
import Logging

/// `--log-level`, `-v` and `--log-format`: what the run logs to standard error, and how.
struct LogOptions: ParsableArguments {
    /// How log lines are written.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Option(
        help: ArgumentHelp(
            "Log to standard error from this level: trace, debug, info, notice, warning, error, critical.", valueName: "LEVEL"),
        completion: .list(Logger.Level.allCases.map(\.rawValue)),
        transform: LogOptions.level(named:))
    var logLevel: Logger.Level?

    @Flag(
        name: .short, help: "Log more to standard error: -v retries, waits, page stops and checkpoints (info); -vv every request (debug).")
    var verbose: Int

    @Option(help: "Log lines as text or json (one object a line).")
    var logFormat: Format = .text

    /// The level asked for, `nil` when the run logs nothing.
    var level: Logger.Level? {
        if let logLevel { return logLevel }
        switch verbose {
        case 0: return nil
        case 1: return .info
        default: return .debug
        }
    }

    /// The level called `name`, or a usage error listing the levels.
    static func level(named name: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: name.lowercased()) else {
            throw ValidationError(
                "unknown log level '\(name)'; expected one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return level
    }

    /// The logger the engine is handed, writing to standard error; `nil` when nothing is logged.
    func logger() -> Logger? {
        guard let level else { return nil }
        let format = logFormat
        var logger = Logger(label: "reform") { label in StandardErrorLogHandler(label: label, json: format == .json) }
        logger.logLevel = level
        return logger
    }
}
