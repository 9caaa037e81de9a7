/// How far a manager's landing has come, for a progress line.
public struct RunProgress: Sendable {
    /// The manager landing records.
    public var manager: String
    /// Records landed so far by this manager.
    public var records: Int
    /// Input bytes read so far (compressed bytes for `.gz` inputs).
    public var bytes: Int
    /// The inputs' total size in bytes, when every input is a regular file.
    public var totalBytes: Int?
    /// Seconds since the manager started.
    public var seconds: Double
    /// Whether this is the manager's last report.
    public var finished: Bool

    /// Records per second so far.
    public var recordsPerSecond: Double { seconds > 0 ? Double(records) / seconds : 0 }

    /// Seconds left at the rate so far, when the total size is known.
    public var secondsLeft: Double? {
        guard let totalBytes, bytes > 0, seconds > 0 else { return nil }
        return Double(max(0, totalBytes - bytes)) * seconds / Double(bytes)
    }
}
