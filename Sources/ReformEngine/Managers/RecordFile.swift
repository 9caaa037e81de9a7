public import ReformSDK

/// The records of a page whose body was kept in a file (an export job's result file): read from
/// it a chunk at a time when the page is taken, never all held at once. The page's
/// ``Landing/records`` is then empty.
///
/// NDJSON, CSV and TSV files and JSON arrays are read this way. A bad line or row is a bad record
/// (its line and reason go to the dead-letter file) and reading carries on; a file damaged as a
/// whole (a JSON array or a quoted CSV field that never closes) fails the manager.
public struct RecordFile: Sendable {
    /// The file.
    public let file: ResponseFile
    /// How its records are laid out.
    public let format: ResponseFormat
    /// The page in messages and dead-letter entries: the request's method and path (no query: a
    /// pre-signed URL's signature stays out of them).
    public let source: String
    let csv: CSVOptions?
    let manager: String
    /// The manager's `budget.max_records` and the records it landed before this page.
    let budget: (max: Int, before: Int)?

    /// The read size (tests use tiny ones, to cut rows and lines across reads).
    var chunkSize = 1 << 20

    /// The records of the file at `path` in `format` (gzip when its name ends in `.gz`), read in
    /// chunks of `chunkSize` bytes: what tests compare with a body read whole.
    package init(path: String, format: ResponseFormat, csv: CSVOptions? = nil, chunkSize: Int) throws(SourceError) {
        do { file = try ResponseFile.fixture(path) } catch { throw SourceError(manager: "-", message: error.description) }
        self.format = format
        self.csv = csv
        source = path
        manager = "-"
        budget = nil
        self.chunkSize = chunkSize
    }

    init(
        file: ResponseFile, format: ResponseFormat, source: String, csv: CSVOptions?, manager: String, budget: (max: Int, before: Int)?
    ) {
        self.file = file
        self.format = format
        self.source = source
        self.csv = csv
        self.manager = manager
        self.budget = budget
    }

}
