import ReformConcurrency
import ReformSystem

/// A manager's pages, fetched on a thread of their own (a ``BlockingExecutor``) up to a few
/// pages ahead of the run loop that takes them: the next request goes out as soon as a page has
/// landed, whatever the run loop is doing, and neither side waits for the other to wake up unless
/// the feed is empty or full.
final class PageFeed: @unchecked Sendable {
    /// What ``next()`` hands over.
    enum Item {
        /// A landed page.
        case landing(Landing)
        /// The manager failed; nothing follows.
        case failure(ManagerError)
        /// Paging has stopped; nothing follows.
        case end
        /// The run was interrupted (a signal); the requests were cancelled.
        case interrupted
    }

    private let manager: APIManager
    private let ahead: Int
    private let stop: StopToken
    private let executor = BlockingExecutor()
    private let lock = ConditionLock()
    /// Guarded by `lock`: pages (and the last word) not yet taken.
    private var items: [Item] = []
    /// Guarded by `lock`.
    private var cancelled = false
    /// Guarded by `lock`.
    private var fetching: Task<Void, Never>?

    /// Starts fetching `manager`'s pages (its `load()`, then `loadNextPage()` until the last),
    /// with at most `ahead` pages landed or in flight that were not taken yet; `stop` asks the
    /// run to stop while a page is awaited.
    init(manager: APIManager, ahead: Int = 2, stop: StopToken = .process) {
        self.manager = manager
        self.stop = stop
        self.ahead = max(1, ahead)
        let task = executor.task { [self] in await fetchAll() }
        lock.withLock { fetching = task }
    }

    /// The next page or the last word, waiting for it; checks for an interruption while waiting.
    func next() -> Item {
        let item = lock.withLock { () -> Item? in
            while items.isEmpty {
                if stop.isRequested { return nil }
                lock.wait(milliseconds: 100)
            }
            lock.broadcast()
            return items.removeFirst()
        }
        guard let item else {
            cancel()
            return .interrupted
        }
        return item
    }

    /// Stops fetching: the request in flight is cancelled (its connection closed) and nothing
    /// more is fetched.
    func cancel() {
        let task = lock.withLock {
            cancelled = true
            lock.broadcast()
            return fetching
        }
        task?.cancel()
        manager.cancel()
    }

    /// Runs on the executor's thread: fetches page after page into `items`, starting a request
    /// only while fewer than `ahead` pages wait to be taken.
    private func fetchAll() async {
        defer { executor.stop() }
        do {
            guard waitForRoom() else { return }
            var landing = try await manager.load()
            put(.landing(landing))
            while !landing.isLast {
                guard waitForRoom() else { return }
                guard let next = try await manager.loadNextPage() else { break }
                landing = next
                put(.landing(landing))
            }
            put(.end)
        } catch {
            put(.failure(error))
        }
    }

    /// Waits while `ahead` pages are not taken; `false` once cancelled.
    private func waitForRoom() -> Bool {
        lock.withLock {
            while items.count >= ahead && !cancelled { lock.wait() }
            return !cancelled
        }
    }

    private func put(_ item: Item) {
        lock.withLock {
            items.append(item)
            lock.broadcast()
        }
    }
}
