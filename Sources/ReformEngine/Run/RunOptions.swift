public import Logging
public import ReformSDK
import ReformSystem

/// Where a run's managers land from.
public enum SourceMode: String, Sendable, CaseIterable {
    /// Recorded fixtures (the offline default).
    case replay
    /// The live APIs.
    case live
    /// The live APIs, writing what comes back as the managers' fixtures.
    case record
}

/// What the command line (or a library caller) asks of one run.
public struct RunOptions: Sendable {
    /// The run to execute; `nil` is the pipeline's default run.
    public var runName: String?
    /// Files to read instead of fixtures, per manager name (`-` is standard input); in order given.
    public var inputs: [(manager: String, path: String)] = []
    /// Tagged input files (`--tagged-input PATH`): each line is `MANAGER<TAB>JSON`, and every
    /// manager of the run lands the lines tagged with its name, in file order (mixed partitions).
    /// `-` is standard input; `PATH@START:END` a byte range. A line without a tab, or tagged with
    /// a manager the run does not have, is a dead letter of the run's first manager.
    public var taggedInputs: [String] = []
    /// Parameters that override the run's.
    public var params: [String: Value] = [:]
    /// The format of the standard-output output, overriding the pipeline's.
    public var format: OutputFormat?
    /// When set, every line of the standard-output output starts with this tag and a tab
    /// (`--tagged-stdout` sets `out`), so that records share standard output with other lines.
    public var standardOutputTag: String?
    /// Where the standard-output output goes instead (written atomically).
    public var outputPath: String?
    /// When set, every output that declares a `path` is written under this folder instead of the
    /// working folder (`reform test` keeps a repository's own output files untouched).
    public var outputFolder: String?
    /// Where rejected records go; by default `reform-dead-letter.ndjson`, created only when needed.
    public var deadLetterPath: String?
    /// Whether table output may use colour (`nil`: only on a terminal without `NO_COLOR`).
    public var colour: Bool?
    /// The width to fit table output to (`nil`: no limit).
    public var maxWidth: Int?
    /// Whether every CSV output of the run starts with the UTF-8 byte-order mark (`--csv-bom`),
    /// which spreadsheet programs need to read CJK text as UTF-8; an output can ask for it alone
    /// with `bom: true`.
    public var csvByteOrderMark = false
    /// Whether CSV cells are written as they are, with no `'` before those a spreadsheet would run
    /// as formulas (`--csv-raw`), for CSV another program reads; see ``OutputPlan/escapeFormulas``.
    public var csvRaw = false
    /// Files the caller writes after the run (`--stats-file`), each named for messages: the
    /// run refuses, before writing anything, one that is the same file as an input, the
    /// pipeline, an output, the dead-letter or state file, or another of them.
    public var alsoWrites: [(path: String, what: String)] = []

    /// Whether the batch fast paths may run: chains compiled to run on input bytes (see
    /// `DirectMapping`, `CompiledChain`), and a last `sort`/`dedupe`/`limit` reformer of an NDJSON
    /// output run on its written lines (`HeldLines`); the output is the same either way.
    public var directWrites = true
    /// What asks this run to stop: by default the process's token, which Ctrl-C and SIGTERM trip
    /// on the command line; give a run a ``StopToken`` of its own to cancel it alone.
    public var stop: StopToken = .process

    /// Workers that run the reform chain over NDJSON inputs; output stays in input order, byte for
    /// byte what one worker writes. 1 is the single-core path. Chains with steps that need every
    /// record (`sort`, `dedupe`, `limit`) and `--limit`/`--sample` runs use one worker.
    public var jobs = 1
    /// Input bytes per batch handed to a worker (tests make it tiny to cross batch edges).
    ///
    /// 512 KiB: with three batches in flight per worker, `--jobs 2` on 200,000 records (114 MB)
    /// peaks at 26 MiB instead of 30 MiB with 1 MiB batches and makes half the page faults, at the
    /// same speed on 5 times that input (best of 10, 0.577 s against 0.574 s).
    public var batchSize = 1 << 19

    /// About how many bytes of records each `sort` step and sorted row shape keeps in memory; past
    /// that it sorts them and spills them to an unlinked temporary file in `TMPDIR` (or `/tmp`),
    /// and merges the files at the end. The output is the same for any value (tests make it tiny);
    /// below about 1 MiB, though, merging the many small runs takes more memory than the budget
    /// saves, which is why `reform run --sort-memory` refuses less.
    public var sortMemory = RunOptions.defaultSortMemory
    /// The default ``sortMemory``: 64 MiB.
    public static let defaultSortMemory = SortMemory.defaultBytes

    /// ``sortMemory``, lowered to an eighth of the address space the process may still take when
    /// it has a limit (`ulimit -v`), but not below 1 MiB: held records take several times their
    /// bytes, and a sort past the limit would stop the process (audit r2 L18) rather than spill.
    var sortBudget: Int {
        guard let room = AddressSpace.room() else { return sortMemory }
        return max(1 << 20, min(sortMemory, room / 8))
    }

    /// Land at most this many records per manager (the first ones), for trying a pipeline.
    public var limit: Int?
    /// Land this many records per manager chosen evenly at random (reservoir sampling with a fixed
    /// seed, so runs repeat), kept in input order.
    public var sample: Int?

    /// Called on the running thread about five times a second while a manager lands records.
    public var progress: (@Sendable (RunProgress) -> Void)?
    /// Called on the writing thread just before bytes go to standard output. On a terminal the
    /// command line erases its progress line (standard error) here, so that a table starts on a
    /// clean line instead of after `… records/s`.
    public var beforeStandardOutput: (@Sendable () -> Void)?
    /// Whether to time every manager and reformer step for ``RunSummary/stats``.
    public var collectsStats = false
    /// Where managers with a service land from: recorded fixtures, the live API, or the live API
    /// recorded as fixtures.
    public var mode: SourceMode = .replay
    /// The service environment whose base URLs live requests use (`nil`: `default`).
    public var environmentName: String?
    /// The environment `${VAR}` references in services resolve from when requests are built.
    public var environment: [String: String] = [:]
    /// Whether managers that declare a `cache:` may answer from it (`--no-cache` turns it off).
    public var useCache = true
    /// Extra interceptors every live request passes through (library users).
    public var interceptors: [any Interceptor] = []
    /// Size and nesting depth of one input record: an NDJSON line or an element of a `.json`
    /// array (`--max-record-bytes`, `--max-json-depth`; 16 MiB and 512 levels by default).
    public var recordLimits = NDJSONReader.defaultLimits
    /// The largest live response body accepted, in bytes (`--max-body-bytes`; 64 MiB by default).
    public var maxBodyBytes = LiveTransport.defaultMaxBodyBytes
    /// Which client sends plain `http://` requests: the built-in HTTP/1.1 client (the default) or
    /// AsyncHTTPClient (`https://` always goes through AsyncHTTPClient).
    public var httpClient = LiveTransport.Client.builtIn
    /// Where live managers' requests go instead of the network, when set (a scripted transport
    /// from `ReformEngineTesting` in tests); `nil` sends them through ``LiveTransport``.
    public var transport: (any Transport)?
    /// What the run's retries and rate limits wait by (``SystemClock`` unless a test gives its
    /// own, such as `VirtualClock` from `ReformEngineTesting`).
    public var clock: any RunClock = SystemClock()

    /// Whether a run waits for another run writing the same outputs or state file
    /// to finish (`--wait-lock`) rather than being refused (``RunError/Code/locked``).
    public var waitsForLock = false

    /// Watches the run as it goes (``RunWatch``): its pages, the first records of each step, the
    /// rejections and the counts. A watched run takes the general path on one thread (as with
    /// ``directWrites`` off and ``jobs`` 1), so that every record passes each step where it can
    /// be seen; its output is the same.
    public var watch: RunWatch?

    /// Whether the batch fast paths may run: ``directWrites``, and the run is not watched.
    var fastPaths: Bool { directWrites && watch == nil }

    /// Called with each cross-layer event of the run's services (rate-limit waits, token
    /// refreshes, unreachable hosts), on the thread that emits it.
    public var onEvent: (@Sendable (ServiceEvent) -> Void)?
    /// Ignores the saved incremental state: every incremental manager starts from its `start`
    /// (or from nothing) and the outputs are replaced, as on a first run.
    public var fullRefresh = false
    /// The state file of incremental managers; `nil`: beside the first output (see ``StateStore``).
    public var statePath: String?

    /// This task's share of a fan-out split across tasks (`--shard I/N`, 0-based): each
    /// partitioned manager runs only its `index`-th contiguous block of partitions, and managers
    /// that do not fan out land only in shard 0, so the outputs of shards 0…N-1 concatenated in
    /// order are the output of one run.
    public var shard: (index: Int, count: Int)?

    /// Partitions of parent → child fan-outs given in files rather than made from the parents'
    /// records (`--partitions MANAGER=FILE`): one JSON object of the child's `for_each` parameters a
    /// line, as ``Runner/partitions(of:)`` lists them. The parents are then not landed for them, so
    /// the tasks of a sharded job need not each fetch the parent level (a listed parent still goes
    /// to the outputs, in shard 0).
    public var partitionFiles: [(manager: String, path: String)] = []

    /// Where the run says what it does: requests and responses (debug), retries, rate-limit waits,
    /// page stops and checkpoints (info), secrets redacted. `nil` (the default) logs nothing; the
    /// engine never makes a logger of its own. Nothing is logged per record.
    public var logger: Logger?

    /// Options for the default run with nothing overridden.
    public init() {}

    /// Whether `manager` lands from input files in this run (its own `--input`s, or tagged inputs).
    func hasInput(for manager: String) -> Bool {
        !taggedInputs.isEmpty || inputs.contains { $0.manager == manager }
    }

    /// Whether the run is a batch transform over input files.
    var isBatch: Bool { !inputs.isEmpty || !taggedInputs.isEmpty }
    /// Whether the run loads its PostgreSQL tables in its transaction and then rolls it back
    /// instead of committing: every row, refusal, dead letter and schema change the run would
    /// make, checked by the server, and nothing of it kept (`reform studio`'s runs, which must not
    /// change a real database; the summary says so). SQLite tables still commit.
    public var rollsBackPostgres = false
    /// Whether the run leaves incremental state alone: its incremental managers fetch as on a
    /// first run, and no state is read, locked or written (``RecordLanding``, which writes nothing).
    package var ignoresState = false
}
