/// What one run holds from its start to its commit: the run's plan, the outputs being written,
/// the dead-letter file, the recordings, and the counts that become its ``RunSummary``.
///
/// ``Runner`` passes it through its steps; nothing of it outlives the run.
struct RunState {
    /// The run of the pipeline being executed.
    let plan: RunPlan
    /// One runtime per output of the run (chain, writer, temporary file), in declaration order.
    var outputs: [OutputRuntime]
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

    /// The output the fast path writes to (the first output; ``DirectMapping`` is made for it).
    var directOutput: Int { outputs.startIndex }
}
