public import ReformSDK
public import ReformYAML

/// An asynchronous export job (`job:`): a request creates it, its status is polled until it is
/// done (or failed, or the wait runs out), then its result files are the manager's pages. The way
/// Salesforce Bulk, Shopify bulk operations and report APIs hand out large data.
public struct JobPlan: Sendable {
    /// A request of the job: its method, path (a template: `{job_id}` and params) and body.
    public struct Request: Sendable {
        /// The HTTP method.
        public var method: String
        /// The path, starting with `/`.
        public var path: String
        /// The body, as a template, when the request has one.
        public var body: BodyTemplate?
    }

    /// The request that creates the job.
    public var create: Request
    /// Where the create answer holds the job's id.
    public var id: ValuePath
    /// The request that asks the job's status (its path has `{job_id}`).
    public var poll: Request
    /// Seconds before the first poll; later polls wait half as long again each time, up to
    /// ``maxEvery``.
    public var every: Double
    /// The longest wait between two polls.
    public var maxEvery: Double
    /// The longest the job may take from its creation; past it the manager fails.
    public var maxWait: Double
    /// Where a poll answer holds the job's status.
    public var status: ValuePath
    /// Status values meaning the results are ready (compared without case).
    public var done: [String]
    /// Status values meaning the job failed.
    public var failed: [String]
    /// Where a failed job's answer says why, when declared.
    public var error: ValuePath?
    /// Where the done answer lists the result files: a URL, a list of URLs, or of objects with
    /// `url` (or `href`).
    public var results: ValuePath
    /// The request that cancels the job (`{job_id}` in its path), sent when the run is stopped
    /// while the job is running, when declared.
    public var cancel: Request? = nil
    /// Where it is declared.
    public var location: SourceLocation

    /// The status values taken as done when none are declared.
    public static let doneByDefault = ["done", "completed", "complete", "succeeded", "success", "finished", "ready"]
    /// The status values taken as failed when none are declared.
    public static let failedByDefault = ["failed", "failure", "error", "errored", "cancelled", "canceled", "aborted", "expired"]
}
