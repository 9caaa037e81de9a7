/// Why a run failed: a code a program can switch on, a message that says what to do, the manager
/// it concerns and the typed failure behind it.
///
/// The message is what the command line prints. A library caller tells a budget overrun from a
/// timeout through ``managerError`` (or ``cause``), not by reading the text:
///
/// ```swift
/// do { summary = try runner.run() } catch {
///     if error.managerError?.kind == .budgetExceeded { ... }
/// }
/// ```
public struct RunError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure stopped the run. Extensible: new codes may be added, so a `switch`
    /// over codes needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The name of the code (`request`, `output`, …).
        public var description: String { name }

        /// The run named with `--run` (or `default`) is not in the pipeline.
        public static let noSuchRun = Code("no-such-run")
        /// An `--input` names a manager the run does not use.
        public static let unknownInput = Code("unknown-input")
        /// A manager the run does not land was named (`reform schema --records --manager`).
        public static let unknownManager = Code("unknown-manager")
        /// A `--param` (``RunOptions/params``) names a parameter no manager of the run declares.
        public static let unknownParam = Code("unknown-param")
        /// Two files of the run are the same file (an output over an input, two outputs at one path).
        public static let pathCollision = Code("path-collision")
        /// A manager's API failed after its policies (retries, budget) gave up; ``managerError`` says how.
        public static let request = Code("request")
        /// A manager's records could not be landed from a file, a fixture or a recording folder.
        public static let source = Code("source")
        /// A service could not be set up (its auth, headers or interceptors).
        public static let service = Code("service")
        /// The pipeline's secrets command (`secrets:`) could not answer its `${exec:NAME}`s.
        public static let secrets = Code("secrets")
        /// A reformer could not be made or failed as a whole (a plugin, a sort that cannot spill).
        public static let reformer = Code("reformer")
        /// An output, the dead-letter file or a recording could not be written.
        public static let output = Code("output")
        /// A signal (Ctrl-C, SIGTERM, SIGHUP) asked the run to stop; nothing was written.
        public static let interrupted = Code("interrupted")
        /// Another run is writing one of the run's files (its outputs or state file):
        /// the run was refused rather than write them at the same time (``RunOptions/waitsForLock``).
        public static let locked = Code("locked")
        /// A fan-out would run more partitions than its `max_partitions` (``PartitionPlan/maxPartitions``).
        public static let partitionLimit = Code("partition-limit")
        /// The run needed something of the system it could not have (a temporary folder).
        public static let system = Code("system")
    }

    /// What kind of failure it was.
    public let code: Code
    /// What went wrong and what to do.
    public let message: String
    /// The manager it concerns, when it concerns one.
    public let manager: String?
    /// The typed failure behind it: a ``ManagerError``, ``SourceError``, ``OutputError``,
    /// ``PluginLoadError``, … when there is one.
    public let cause: (any Error & Sendable)?
    /// The dead-letter file the run kept and how many rejected records it holds, when it
    /// rejected any before it failed or was interrupted.
    public internal(set) var deadLetter: (path: String, count: Int)?
    /// Whether the run's incremental outputs keep their last checkpoint (the next run resumes
    /// there) rather than being left as they were before the run.
    public internal(set) var keepsCheckpoint = false

    /// A failure of `code` saying `message`, about `manager`, because of `cause`.
    public init(_ code: Code, _ message: String, manager: String? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.manager = manager
        self.cause = cause
    }

    /// The failure of a manager's source: ``Code/request`` when its API failed, ``Code/source``
    /// when its files or fixtures did.
    public init(_ error: SourceError) {
        self.init(error.cause == nil ? .source : .request, error.description, manager: error.manager, cause: error.cause ?? error)
    }

    /// The failure of a manager's API.
    public init(_ error: ManagerError) {
        self.init(.request, error.description, manager: error.manager, cause: error)
    }

    /// A chain's plugin that could not make its reformer.
    init(_ error: UnmadeReformer) {
        self.init(.reformer, error.message, cause: error.cause)
    }

    /// A file of the run that could not be written (an output, the dead-letter file, a recording).
    public init(_ error: OutputError) {
        self.init(.output, error.description, cause: error)
    }

    /// The manager's failure behind the run's, when a manager's API failed: its kind tells a
    /// timeout from a budget overrun or rejected credentials.
    public var managerError: ManagerError? {
        cause as? ManagerError ?? (cause as? SourceError)?.cause
    }

    /// The message.
    public var description: String { message }

    /// The same failure with `text` added to its message.
    func adding(_ text: String) -> RunError {
        var copy = RunError(code, message + text, manager: manager, cause: cause)
        copy.deadLetter = deadLetter
        copy.keepsCheckpoint = keepsCheckpoint
        return copy
    }
}
