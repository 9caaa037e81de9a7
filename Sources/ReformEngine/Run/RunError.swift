/// A run that could not start or could not finish; outputs are left untouched.
public struct RunError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String

    /// A run failure saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
