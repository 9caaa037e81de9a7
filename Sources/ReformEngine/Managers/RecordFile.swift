import ReformConcurrency
public import ReformSDK

/// The records of a page whose body was kept in a file (an export job's result file, a download
/// that does not page; ``ManagerPlan/streamsBodies``): read from it a chunk at a time when the
/// page is taken, never all held at once. The page's
/// ``Landing/records`` is then empty.
///
/// NDJSON, CSV, TSV, XML and JSON arrays are read this way. A bad line or row is a bad record
/// (its line and reason go to the dead-letter file) and reading carries on; a file damaged as a
/// whole (a JSON array or a quoted CSV field that never closes, XML that is not well-formed)
/// fails the manager.
public struct RecordFile: Sendable {
    /// The file.
    public let file: ResponseFile
    /// How its records are laid out.
    public let format: ResponseFormat
    /// The page in messages and dead-letter entries: the request's method and path (no query: a
    /// pre-signed URL's signature stays out of them).
    public let source: String
    let csv: CSVOptions?
    /// The manager's `records:` (XML's record elements).
    let recordsPath: ValuePath?
    let manager: String
    /// The manager's `budget.max_records`, the records it held in pages before, and the count
    /// its result files' records are added to as they are read (shared by its files).
    let budget: RecordBudget?

    /// The read size (tests use tiny ones, to cut rows and lines across reads).
    var chunkSize = 1 << 20

    /// The records of the file at `path` in `format` (gzip when its name ends in `.gz`), read in
    /// chunks of `chunkSize` bytes: what tests compare with a body read whole.
    package init(path: String, format: ResponseFormat, csv: CSVOptions? = nil, records: ValuePath? = nil, chunkSize: Int)
        throws(SourceError)
    {
        let file: ResponseFile
        do { file = try ResponseFile.fixture(path) } catch { throw SourceError(manager: "-", message: error.description) }
        self.init(file: file, format: format, source: path, csv: csv, records: records, manager: "-", budget: nil)
        self.chunkSize = chunkSize
    }

    init(
        file: ResponseFile, format: ResponseFormat, source: String, csv: CSVOptions?, records: ValuePath?, manager: String,
        budget: RecordBudget?
    ) {
        recordsPath = records
        self.file = file
        self.format = format
        self.source = source
        self.csv = csv
        self.manager = manager
        self.budget = budget
    }
}

/// A manager's `budget.max_records` kept over records read from its result files: they are
/// counted as they are read, after their pages landed, so the count is shared by every file of
/// one paging (and read on the run's thread while the next file downloads).
final class RecordBudget: Sendable {
    /// The most records the manager may land.
    let max: Int
    /// Records landed in pages held in memory before the files.
    let before: Int
    private let read = Guarded(0)

    /// A budget of `max` records, `before` of them spent.
    init(max: Int, before: Int) {
        self.max = max
        self.before = before
    }

    /// Counts one record read from a file; throws once the budget is passed.
    func spend(manager: String) throws(ManagerError) {
        let total =
            before
            + read.withLock { count in
                count += 1
                return count
            }
        if total > max { throw BudgetMeter.recordsExceeded(total, max: max, manager: manager) }
    }
}
