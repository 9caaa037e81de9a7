/// What an NDJSON input's lines go through before they land as records, when the run's plan found
/// a fast path for them (``ExecutionPlan``'s line path): made above this floor — the chain's
/// compiled start run on each line's bytes, or lines written straight to the outputs — and handed
/// to the source, which only gives it the reader's lines and reports what it did.
protocol LineFastPath: AnyObject {
    /// Sets `reader`'s line hooks (``NDJSONReader/lineHandler``, ``NDJSONReader/lineReformer``) to
    /// this path's own work, for the lines of `input` (named in dead letters).
    func attach(to reader: inout NDJSONReader, input: String)
    /// How many reformers at the chain's start a line it reformed already went through (it lands
    /// as ``Landed/reformed(_:line:page:stages:)``); `nil` when it reforms none.
    var reformedStages: Int? { get }
    /// Lines it took so far: written to the outputs or dropped by a filter, they never land.
    var handled: Int { get }
    /// The outputs it already wrote the line that landed last to (`nil`: none).
    var outputsWrittenForLastLine: [Bool]? { get }
    /// What it did for each output, in output order.
    var counts: [DirectCounts] { get }
}

/// A source that reads lines, which a ``LineFastPath`` may take before they land (an NDJSON
/// input): the runner asks its path what it took and wrote; a ``RecordSource`` that is not a line
/// source lands every record it reads.
protocol LineSource: RecordSource {
    /// What its lines go through before they land, when the run's plan gave them a line path.
    var linePath: (any LineFastPath)? { get }
    /// How many reformers at the start of the one output's chain (with several outputs, of the
    /// one the line path left to the general path) already made the record the last ``next()``
    /// landed: where the line path hands over to values, the rest of the chain taking it from
    /// there. `nil`: the record is as the line was.
    var lastRecordStages: Int? { get }
}

/// What a fast path did for one output: the records it wrote there (fewer than the lines it took
/// when a filter dropped some, more when a chain exploded them), and what each reformer at the
/// start of the output's chain did with those lines, when it knows (`nil`: each went through
/// every reformer, one in, one out).
struct DirectCounts {
    var written: Int
    var stages: [StageCounts]?
}

/// What one reformer of a chain did, when the run is timing its stages (`--stats`).
struct StageCounts: Sendable {
    var recordsIn = 0
    var recordsOut = 0
    var rejected = 0
    var seconds = 0.0
}
