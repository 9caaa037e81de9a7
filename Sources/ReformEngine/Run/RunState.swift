import ReformSDK

/// What one run holds from its start to its commit: the run's plan, the outputs being written,
/// the dead-letter file, the recordings, and the counts that become its ``RunSummary``.
///
/// ``Runner`` passes it through its steps; nothing of it outlives the run.
struct RunState {
    /// The run of the pipeline being executed.
    let plan: RunPlan
    /// One runtime per output of the run (chain, writer, temporary file), in declaration order.
    var outputs: [OutputRuntime]
    /// The open transactions of the table outputs, one per database.
    let tables: DatabaseTransactions
    /// Where rejected records go.
    let deadLetter: DeadLetter
    /// The `--record` folders being written, one per live manager that records.
    var recorders: [Recorder] = []
    /// The counts so far.
    var summary = RunSummary()
    /// Per-manager timings and sizes, when `--stats` asked for them.
    var stats: RunStats?
    /// When the run started, in seconds on the monotonic clock.
    let started: Double
    /// The run's managers that are parents of a fan-out, by index: the children whose partitions
    /// their records make.
    var children: [Int: [ManagerPlan]] = [:]
    /// The partitions each child (by index) gets from its parent's records, distinct, in order.
    var childPartitions: [Int: PartitionCollector] = [:]
    /// The partitions of children given in files (``RunOptions/partitionFiles``), by index: their
    /// parents are not landed for them.
    var givenPartitions: [Int: [Partition]] = [:]
    /// The manager (by index) a partition listing stops before: its parents land, it does not.
    var stopBefore: Int?
    /// Managers landed only because a child needs their records: they go to no output.
    var parentsOnly: Set<Int> = []
    /// The run's incremental managers' state, checkpoints and commit, when it has any.
    var incremental: IncrementalRun?
    /// What the run's plan decided for each output, in order (``ExecutionPlanner``).
    var outputExecutions: [OutputExecution] = []
    /// What the run's plan decided for each manager it lands, by index (``ExecutionPlanner``).
    var executions: [Int: ManagerExecution] = [:]
    /// The plan described, for `--stats json`.
    var explained: ExecutionPlan?

    /// The output the fast path writes to (the first output; ``DirectMapping`` is made for it).
    var directOutput: Int { outputs.startIndex }
}
