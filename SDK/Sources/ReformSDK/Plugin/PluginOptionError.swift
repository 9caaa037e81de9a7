/// An option a pipeline gave a plugin is unusable. The engine reports it at the option's line and
/// column in the pipeline file (or at `options:` when ``option`` is `nil`).
public struct PluginOptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The option at fault, when there is one.
    public let option: String?
    /// What is wrong and how to fix it (`must be between 1 and 4096, not 0`).
    public let message: String

    /// A problem with `option` (or with the options as a whole when `nil`).
    public init(option: String?, message: String) {
        self.option = option
        self.message = message
    }

    /// `option 'width': message`, or the message alone.
    public var description: String {
        option.map { "option '\($0)': \(message)" } ?? message
    }
}
