/// What a manager has spent against its ``BudgetPlan``: pages, records, calls and time.
public struct BudgetMeter: Sendable {
    /// Pages landed.
    public private(set) var pages = 0
    /// Records landed.
    public private(set) var records = 0
    /// HTTP calls made (retries and token refreshes included).
    public private(set) var calls = 0
    /// When the first call was made, in seconds on ``clock``.
    private var startedAt: Double?
    /// The clock time is kept by: the run's (``RunOptions/clock``), so that the waits it makes
    /// (retries, `Retry-After`, rate limits) count, and a test's virtual clock moves it.
    private let clock: any RunClock

    /// Nothing spent yet, time kept by the system clock.
    public init() {
        self.init(clock: SystemClock())
    }

    /// Nothing spent yet, time kept by `clock`.
    public init(clock: any RunClock) {
        self.clock = clock
    }

    /// Seconds since the first call.
    public var elapsed: Double {
        guard let startedAt else { return 0 }
        return clock.now() - startedAt
    }

    /// Counts one call; throws when the calls or the wall time are spent.
    mutating func spendCall(against budget: BudgetPlan, manager: String) throws(ManagerError) {
        if startedAt == nil { startedAt = clock.now() }
        if let max = budget.maxCalls, calls >= max {
            throw BudgetMeter.exceeded(manager, "its budget of \(max) calls (budget.max_calls) is spent")
        }
        if let max = budget.maxTime, elapsed > max {
            throw BudgetMeter.exceeded(manager, "its budget of \(max) s (budget.max_time) is spent after \(calls) calls")
        }
        calls += 1
    }

    /// Counts the pages a stopped run landed before this one resumed it: they were spent too.
    mutating func resume(pages: Int) { self.pages = pages }

    /// Counts a landing; throws when it goes past the page or record budget.
    mutating func land(pages: Int, records: Int, against budget: BudgetPlan, manager: String) throws(ManagerError) {
        self.pages += pages
        self.records += records
        if let max = budget.maxPages, self.pages > max {
            throw BudgetMeter.exceeded(manager, "page \(self.pages) goes past its budget of \(max) pages (budget.max_pages)")
        }
        if let max = budget.maxRecords, self.records > max {
            throw BudgetMeter.recordsExceeded(self.records, max: max, manager: manager)
        }
    }

    /// `records` landed past a budget of `max` (the records of a result file are counted as
    /// they are read).
    static func recordsExceeded(_ records: Int, max: Int, manager: String) -> ManagerError {
        exceeded(manager, "\(records) records go past its budget of \(max) (budget.max_records)")
    }

    private static func exceeded(_ manager: String, _ what: String) -> ManagerError {
        ManagerError(
            .budgetExceeded, manager: manager, request: nil,
            message: what + "; raise the budget, or stop paging earlier with paging.max_pages / max_records")
    }
}
