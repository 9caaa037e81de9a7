/// A run that could not start or could not finish; outputs are left untouched.
public struct RunError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String
    /// The dead-letter file the run kept and how many rejected records it holds, when it
    /// rejected any before it failed or was interrupted.
    public internal(set) var deadLetter: (path: String, count: Int)?

    /// A run failure saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
