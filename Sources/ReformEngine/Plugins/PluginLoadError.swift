/// A plugin that cannot be used, saying what to run to fix it.
public struct PluginLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it is; stable, for scripts and tests.
    public enum Code: String, Sendable, Equatable {
        /// No plugin of that name in any search path.
        case notFound = "not-found"
        /// The package is there but its library has not been built.
        case notBuilt = "not-built"
        /// The dynamic loader refused the library.
        case cannotOpen = "cannot-open"
        /// The library lacks one of the C-named entry points.
        case missingEntryPoint = "missing-entry-point"
        /// The library was built against another plugin ABI.
        case abiMismatch = "abi-mismatch"
        /// The entry point returned something that is not a `ReformerPlugin`.
        case notAReformer = "not-a-reformer"
    }

    /// What kind of failure it is.
    public let code: Code
    /// The plugin's name as the pipeline wrote it.
    public let plugin: String
    /// What went wrong and what to run.
    public let message: String

    /// A failure of `code` for `plugin`.
    public init(_ code: Code, plugin: String, _ message: String) {
        self.code = code
        self.plugin = plugin
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
