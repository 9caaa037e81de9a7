/// Why a manager stopped paging: a kind a program can switch on, with the figures that explain it.
/// Its ``description`` is the text `reform test`'s `stopped:` expectations and the run summary
/// show (`short page (2 < 3)`).
public struct StopReason: Sendable, Hashable, CustomStringConvertible {
    /// What ended the paging.
    public enum Kind: String, Sendable, CaseIterable {
        /// The manager does not page: one request is all there is.
        case singleRequest = "single request"
        /// The declared `max_pages` was reached.
        case maxPages = "max_pages"
        /// The declared `max_records` was reached.
        case maxRecords = "max_records"
        /// A page came back with no records.
        case emptyPage = "empty page"
        /// A page came back with fewer records than the page size asked for.
        case shortPage = "short page"
        /// The response named no next page (no cursor or next URL).
        case noNextToken = "no next token"
        /// The response had no `Link: rel="next"` (RFC 8288 paging).
        case noNextLink = "no next link"
        /// The response said there are no more pages (the paging's `has_more` path, GraphQL's
        /// `hasNextPage`, was not true).
        case noMorePages = "no more pages"
        /// Every result file of an export job was read (``limit``: how many there were).
        case allResults = "all results"
    }

    /// What ended the paging.
    public let kind: Kind
    /// The records on the last page (``Kind/shortPage``).
    public let records: Int?
    /// The limit that was reached: the page size (``Kind/shortPage``), `max_pages` or `max_records`.
    public let limit: Int?

    /// A stop of `kind`, with the records on the last page and the limit where they explain it.
    public init(_ kind: Kind, records: Int? = nil, limit: Int? = nil) {
        self.kind = kind
        self.records = records
        self.limit = limit
    }

    /// `single request`, `max_pages (5)`, `short page (2 < 3)`, `no next token`, …
    public var description: String {
        switch (kind, records, limit) {
        case (.shortPage, let records?, let limit?): return "\(kind.rawValue) (\(records) < \(limit))"
        case (.maxPages, _, let limit?), (.maxRecords, _, let limit?), (.allResults, _, let limit?): return "\(kind.rawValue) (\(limit))"
        default: return kind.rawValue
        }
    }
}
