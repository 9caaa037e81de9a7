import ReformSDK

/// Lands a manager's pages from its live API through an ``APIManager``, fetched ahead on a thread
/// of their own (``PageFeed``) while the chain works on the current one. Every page can be
/// recorded as a fixture.
final class LiveSource: RecordSource {
    let inputName: String
    private let manager: APIManager
    private let recorder: Recorder?
    private var pending: [Value] = []
    private var index = 0
    private var page = 0
    private let feed: PageFeed
    private var finished = false

    init(manager: APIManager, recorder: Recorder?) {
        self.manager = manager
        self.recorder = recorder
        inputName = manager.client.redact(manager.client.baseURL + (manager.plan.path ?? "/"))
        feed = PageFeed(manager: manager)
    }

    deinit {
        feed.cancel()
    }

    func next() throws(SourceError) -> Landed? {
        while index >= pending.count {
            guard !finished else { return nil }
            let landing: Landing
            switch feed.next() {
            case .landing(let value): landing = value
            case .failure(let error):
                finished = true
                throw SourceError(error)
            case .end:
                finished = true
                return nil
            case .interrupted:
                finished = true
                throw SourceError(manager: manager.plan.ref.name, message: "interrupted; its requests were cancelled")
            }
            do { try recorder?.record(landing) } catch { throw SourceError(manager: manager.plan.ref.name, message: error.description) }
            pending = landing.records
            index = 0
            page = landing.page
        }
        defer { index += 1 }
        return .record(pending[index], line: 0, page: page)
    }
}
