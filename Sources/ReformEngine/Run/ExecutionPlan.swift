import ReformSDK

/// How a run executes, decided once before anything lands: for each manager, where its records
/// come from and whether workers share its input; for each of its outputs, which tier runs each
/// part of the chain. `reform run --explain` prints it without running (``text``), and
/// `--stats json` reports it as `"plan"` (``json``).
///
/// The tiers give the same output, dead letters and counts; they differ in speed. A line the
/// faster tier cannot take (an escape a conversion must parse, a record a step rejects) still goes
/// down the general path, so a plan says what runs where a line qualifies.
public struct ExecutionPlan: Sendable, Equatable {
    /// Where a part of a chain runs.
    public enum Tier: String, Sendable, Equatable {
        /// A plain mapping's values copied from each input line's bytes.
        case copied
        /// Compiled: run on each input line's bytes, building no values.
        case compiled
        /// A plugin's field reformer reading each input line's bytes.
        case plugin
        /// Bound into the table from each input line's bytes.
        case table
        /// The general tier: each record parsed into values and run through the reformers.
        case records
        /// On the output's written lines, held until the end (a last `sort`, `dedupe`, `limit`).
        case lines
    }

    /// Consecutive reformers of a chain that run in one tier.
    public struct Segment: Sendable, Equatable {
        /// The reformers, in chain order; empty for a chain with none (records written as landed).
        public var reformers: [String]
        /// Where they run.
        public var tier: Tier
        /// Whether the `--jobs` workers run them (else the thread that lands the manager).
        public var onWorkers: Bool
    }

    /// One output of a run.
    public struct Output: Sendable, Equatable {
        /// Where it goes: its path, `-` for standard output, or `DATABASE#TABLE`.
        public var name: String
        /// The format written (`table` for a database table).
        public var format: String
        /// Its chain's reformers, in order.
        public var reformers: [String]
        /// Its row shape's name, when it renders rows.
        public var rows: String?
    }

    /// One manager's records on their way to one output.
    public struct Route: Sendable, Equatable {
        /// The output's position in the run.
        public var output: Int
        /// The chain in tiers, in order.
        public var segments: [Segment]
        /// Whether its rows are rendered from the input line's bytes.
        public var rowsFromLine: Bool
    }

    /// One manager of the run.
    public struct Manager: Sendable, Equatable {
        /// The manager.
        public var name: String
        /// Where its records come from, in words (`--input` files, its live API, its fixtures).
        public var source: String
        /// Workers its input lands on (1: this thread).
        public var jobs: Int
        /// Why it lands on one thread when `--jobs` asked for more; `nil` otherwise.
        public var oneThread: String?
        /// The only top-level fields its JSON reader builds; `nil`: every field.
        public var fields: [String]?
        /// Its records' way to each output (none for a parent landed only for its children).
        public var routes: [Route]
        /// Why its records take no faster tier than they do; `nil` when nothing faster applies.
        public var why: String?
    }

    /// The run's name.
    public var run: String
    /// The run's outputs, in order.
    public var outputs: [Output]
    /// The managers it lands, in landing order.
    public var managers: [Manager]
}
