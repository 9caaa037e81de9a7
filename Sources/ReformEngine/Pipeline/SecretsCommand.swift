public import ReformYAML

/// The pipeline's secrets command (`secrets: { command, timeout }`): the program that answers
/// `${exec:NAME}` references, run once before a live or recording run asks anything, with
/// Vector's exec-backend protocol — `{"version": "1.0", "secrets": ["NAME", …]}` on its standard
/// input, `{"NAME": {"value": "…", "error": null}, …}` on its standard output.
public struct SecretsCommand: Sendable {
    /// The program and its arguments; a program written as a relative path is resolved against
    /// the pipeline's folder.
    public let command: [String]
    /// The command as written, for messages.
    public let written: String
    /// The longest it may take, in seconds.
    public let timeout: Double
    /// Where it is declared.
    public let location: SourceLocation
}
