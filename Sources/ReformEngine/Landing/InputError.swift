/// An input could not be opened or read (a malformed record is an ``InputRecord`` instead).
public struct InputError: Error, Sendable, CustomStringConvertible {
    /// The input path as the user gave it.
    public let path: String
    /// What failed, with the system's reason.
    public let message: String

    /// An error for `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}
