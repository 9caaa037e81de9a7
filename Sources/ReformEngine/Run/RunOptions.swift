public import ReformSDK

/// What the command line (or a library caller) asks of one run.
public struct RunOptions: Sendable {
    /// The run to execute; `nil` is the pipeline's default run.
    public var runName: String?
    /// Files to read instead of fixtures, per manager name (`-` is standard input); in order given.
    public var inputs: [(manager: String, path: String)] = []
    /// Parameters that override the run's.
    public var params: [String: Value] = [:]
    /// The format of the standard-output output, overriding the pipeline's.
    public var format: OutputFormat?
    /// Where the standard-output output goes instead (written atomically).
    public var outputPath: String?
    /// Where rejected records go; by default `reform-dead-letter.ndjson`, created only when needed.
    public var deadLetterPath: String?
    /// Whether table output may use colour (`nil`: only on a terminal without `NO_COLOR`).
    public var colour: Bool?
    /// The width to fit table output to (`nil`: no limit).
    public var maxWidth: Int?

    /// Whether plain field mappings to NDJSON may copy values straight from input bytes (the batch
    /// fast path, see ``DirectMapping``); the output is the same either way.
    public var directWrites = true

    /// Options for the default run with nothing overridden.
    public init() {}
}
