import ReformSDK

/// Lands a manager's pages from its live API through an ``APIManager``, fetching the next page
/// while the chain works on the current one. Every page can be recorded as a fixture.
final class LiveSource: RecordSource {
    let inputName: String
    private let manager: APIManager
    private let recorder: Recorder?
    private var pending: [Value] = []
    private var index = 0
    private var page = 0
    private var inFlight: Blocking<Landing?, ManagerError>?
    private var finished = false

    init(manager: APIManager, recorder: Recorder?) {
        self.manager = manager
        self.recorder = recorder
        inputName = manager.client.redact(manager.client.baseURL + (manager.plan.path ?? "/"))
        inFlight = Blocking { [manager] () async throws(ManagerError) -> Landing? in try await manager.load() }
    }

    deinit {
        inFlight?.cancel()
        manager.cancel()
    }

    func next() throws(SourceError) -> Landed? {
        while index >= pending.count {
            guard !finished, let flight = inFlight else { return nil }
            let landing: Landing?
            switch flight.wait() {
            case .success(let value)?: landing = value
            case .failure(let error)?: throw SourceError(error)
            case nil: throw SourceError(manager: manager.plan.ref.name, message: "interrupted; its requests were cancelled")
            }
            inFlight = nil
            guard let landing else {
                finished = true
                return nil
            }
            do { try recorder?.record(landing) } catch { throw SourceError(manager: manager.plan.ref.name, message: error.description) }
            pending = landing.records
            index = 0
            page = landing.page
            if landing.isLast {
                finished = true
            } else {
                inFlight = Blocking { [manager] () async throws(ManagerError) -> Landing? in try await manager.loadNextPage() }
            }
        }
        defer { index += 1 }
        return .record(pending[index], line: 0, page: page)
    }
}
