import ReformSDK

/// Lands a manager's pages from its live API through an ``APIManager``, fetched ahead on a thread
/// of their own (``PageFeed``) while the chain works on the current one. Every page can be
/// recorded as a fixture.
final class LiveSource: RecordSource {
    let inputName: String
    private let manager: APIManager
    private let recorder: Recorder?
    private var current = PageRecords()
    private var page = 0
    private let feed: PageFeed
    private var finished = false
    /// Pages landed so far.
    private(set) var pages = 0
    /// Why paging stopped, once it has.
    private(set) var stopReason: StopReason?
    /// HTTP calls made so far (retries and token refreshes included).
    var requests: Int { manager.spent.calls }
    /// Body bytes landed so far.
    private(set) var bytes = 0
    private var bytesObserver: ((Int) -> Void)?
    /// Called when every record of a page has been handed out, before the next page is taken:
    /// the next page's request (`nil`: paging stopped) and the pages done (checkpoints).
    var onPageEnd: ((HTTPRequest?, Int) -> Void)?
    /// Called with each page as it is taken (a ``RunWatch``).
    var onPage: ((Landing) -> Void)?
    /// Called with the failure that ends the manager's pages and the page's number (a ``RunWatch``).
    var onPageFailed: ((ManagerError, Int) -> Void)?
    private var last: Landing?

    /// Lands `manager`'s pages, fetching up to `ahead` pages before they are taken.
    /// `stop` asks the run to stop while a page is awaited.
    init(manager: APIManager, recorder: Recorder?, ahead: Int = 2, stop: StopToken = .process) {
        self.manager = manager
        self.recorder = recorder
        inputName = manager.client.redact(manager.client.baseURL + (manager.plan.path ?? "/"))
        feed = PageFeed(manager: manager, ahead: ahead, stop: stop)
    }

    func observeBytes(_ handler: @escaping (Int) -> Void) { bytesObserver = handler }

    deinit {
        feed.cancel()
    }

    func next() throws(SourceError) -> Landed? {
        while true {
            if let landed = try current.next() { return landed }
            if let last {
                onPageEnd?(last.isLast ? nil : last.next, last.page)
                self.last = nil
            }
            guard !finished else { return nil }
            let landing: Landing
            switch feed.next() {
            case .landing(let value): landing = value
            case .failure(let error):
                finished = true
                // A request the run cancelled (Ctrl-C, the studio's Cancel) is no failed page.
                if error.kind != .cancelled { onPageFailed?(error, page + 1) }
                throw SourceError(error)
            case .end:
                finished = true
                return nil
            case .interrupted:
                finished = true
                throw SourceError(manager: manager.plan.ref.name, message: "interrupted; its requests were cancelled")
            }
            do { try recorder?.record(landing) } catch { throw SourceError(manager: manager.plan.ref.name, message: error.description) }
            onPage?(landing)
            try current.start(landing.records, file: landing.recordFile, page: landing.page)
            page = landing.page
            last = landing
            pages += 1
            bytes += landing.response.byteCount
            bytesObserver?(bytes)
            if landing.isLast { stopReason = landing.stopReason }
        }
    }
}
