import ReformSystem

/// When the table format colours its header and styled rows with ANSI escape codes.
///
/// Resolve it to the `colour` flag that `makeWriter(columns:output:colour:maxWidth:title:)`
/// takes: ``isEnabled(isTerminal:noColour:)`` decides from the facts (injectable for tests),
/// ``isEnabledForStandardOutput()`` looks them up for standard output. Output to a file should pass
/// `false` (or use ``never``).
public enum ColourMode: String, CaseIterable, Sendable {
    /// Colour when writing to a terminal and `NO_COLOR` is unset or empty (https://no-color.org).
    case auto
    /// Always colour, even into a pipe or with `NO_COLOR` set (an explicit user choice wins).
    case always
    /// Never colour.
    case never

    /// Whether to colour, given whether the destination is a terminal and the value of `NO_COLOR`.
    public func isEnabled(isTerminal: Bool, noColour: String?) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: isTerminal && (noColour ?? "").isEmpty
        }
    }

    /// Whether to colour standard output, from `isatty(1)` and this process's `NO_COLOR`.
    public func isEnabledForStandardOutput() -> Bool {
        isEnabled(isTerminal: isatty(STDOUT_FILENO) == 1, noColour: getenv("NO_COLOR").map { String(cString: $0) })
    }
}
