public import ReformSDK
public import ReformYAML

/// An incremental manager (`incremental:`): the record field that orders changes, and how the
/// bookmark saved by the last run is sent so the next run asks only for what is newer.
public struct IncrementalPlan: Sendable {
    /// How cursor values are written and compared.
    public enum Format: String, Sendable, CaseIterable {
        /// ISO 8601 timestamps (`2026-01-01T00:00:00Z`); compared as instants, sent as written.
        case iso8601
        /// Seconds since the epoch.
        case epochSeconds = "epoch-seconds"
        /// Milliseconds since the epoch.
        case epochMillis = "epoch-ms"
        /// Whole numbers that only grow (ids, sequence numbers).
        case number
        /// Text compared as it is, byte by byte (opaque tokens that sort).
        case opaque
    }

    /// The record field holding the cursor (`updated_at`).
    public let cursor: ValuePath
    /// The parameter the bookmark is sent as (`since`): in the path when the path has `{since}`,
    /// else where the manager sends its parameters (query, JSON or form body).
    public let param: String
    /// How the cursor is written and compared.
    public let format: Format
    /// Seconds subtracted from the bookmark when it is sent (late writes), for time formats.
    public let lookback: Double
    /// The record field that identifies a record: records of the lookback window the last run
    /// already landed (same key and same cursor) are dropped, not landed twice.
    public let key: ValuePath?
    /// The value sent on the first run, when any (else the parameter is left out).
    public let start: Value?
    /// Pages between checkpoints: outputs are synced and the state saved every this many pages,
    /// so a killed run resumes there.
    public let checkpointPages: Int
    /// Where `incremental:` is declared.
    public let location: SourceLocation
}
