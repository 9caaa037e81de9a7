import ReformSDK
import ReformYAML

/// One thing a source landed: a record, or a bad one that goes to the dead-letter file.
enum Landed {
    case record(Value, line: Int, page: Int)
    /// A line that is not a record; `at` names where it is when `line` alone does not (a byte
    /// range's `PATH@OFFSET`).
    case bad(line: Int, error: RecordError, text: String?, at: String? = nil)
}

/// A manager's landed records, one at a time (fixtures replayed page by page, or input files).
protocol RecordSource: AnyObject {
    /// Where records come from, for messages and dead-letter entries (`zufang.ndjson`, `fixtures/zufang`).
    var inputName: String { get }
    /// The next landed record, `nil` at the end; throws when the source fails as a whole.
    func next() throws(SourceError) -> Landed?
    /// The whole record the last ``next()`` landed, when that landing was built only in part
    /// (a projection); `nil` when the landed value is already whole.
    func originalRecord() -> Value?
    /// Asks to be told the bytes read so far after each read (sources that read files in chunks).
    func observeBytes(_ handler: @escaping (Int) -> Void)
    /// Where the record the last ``next()`` landed starts in its file, when the source reads a
    /// byte range (`nil` otherwise: `inputName` and the record's line say where).
    var rangePosition: RangePosition? { get }
}

extension RecordSource {
    func originalRecord() -> Value? { nil }
    func observeBytes(_ handler: @escaping (Int) -> Void) {}
    var rangePosition: RangePosition? { nil }
}

/// Replays a manager's recorded exchanges through its paging, page by page.
final class FixtureSource: RecordSource {
    let inputName: String
    private var loader: PageLoader
    private let transport: ReplayTransport
    private var current = PageRecords()
    private var page = 0
    /// The requests answered so far, in order.
    private(set) var answered: [AnsweredRequest] = []
    /// The pages landed so far (an export job's create and polls are requests, not pages).
    private(set) var pagesLanded = 0
    /// Why paging stopped, once it has.
    var stopReason: StopReason? { loader.stopReason }
    /// Called when every record of a page has been handed out, before the next page is asked
    /// for: the next page's request (`nil`: paging stopped) and the pages done (checkpoints).
    var onPageEnd: ((HTTPRequest?, Int) -> Void)?
    /// Called with each page as it is replayed (a ``RunWatch``).
    var onPage: ((Landing) -> Void)?
    /// Called with the failure that ends the replay and the page's number (a ``RunWatch``).
    var onPageFailed: ((ManagerError, Int) -> Void)?
    /// Body bytes of the pages replayed so far.
    private(set) var bytes = 0
    private var bytesObserver: ((Int) -> Void)?

    func observeBytes(_ handler: @escaping (Int) -> Void) { bytesObserver = handler }

    init(manager: ManagerPlan, params: [String: Value], transport: ReplayTransport, resumeAt: (request: HTTPRequest, pagesDone: Int)? = nil)
        throws(SourceError)
    {
        inputName = manager.fixtures ?? "fixtures"
        do { loader = try PageLoader(manager: manager, params: params) } catch { throw SourceError(error) }
        if let resumeAt { loader.resume(at: resumeAt.request, pagesDone: resumeAt.pagesDone) }
        self.transport = transport
    }

    func next() throws(SourceError) -> Landed? {
        while true {
            if let landed = try current.next() { return landed }
            if page > 0 { onPageEnd?(loader.nextRequest, loader.pageNumber - 1) }
            guard let request = loader.nextRequest else { return nil }
            do {
                try loader.spendCall()
                let response = try transport.answer(request, for: loader.manager.ref)
                answered.append(AnsweredRequest(manager: loader.manager.ref.name, request: request))
                if loader.isJobStep {
                    // An export job's create or poll: no records, and no wait (it was recorded).
                    _ = try loader.landJobStep(response)
                    continue
                }
                page = loader.pageNumber
                pagesLanded += 1
                bytes += response.byteCount
                bytesObserver?(bytes)
                let records = try loader.land(response)
                if let onPage {
                    var landing = Landing(
                        manager: loader.manager.ref, page: page, records: records, request: request, response: response, cached: false,
                        isLast: loader.finished, stopReason: loader.stopReason, next: loader.nextRequest)
                    landing.recordFile = loader.landedFile
                    onPage(landing)
                }
                try current.start(records, file: loader.landedFile, page: page)
            } catch let error as ManagerError {
                onPageFailed?(error, loader.pageNumber)
                throw SourceError(error)
            } catch let error as TransportError {
                onPageFailed?(ManagerError(error), loader.pageNumber)
                throw SourceError(ManagerError(error))
            } catch let error as SourceError {
                throw error
            } catch {
                throw SourceError(manager: loader.manager.ref.name, message: "\(error)")
            }
        }
    }
}

/// The records of a YAML input file: each document, or each element of a document that is a list.
final class YAMLFileSource: RecordSource {
    let inputName: String
    private var records: [(Value, Int)] = []
    private var index = 0

    init(path: String, manager: String, bytes: [UInt8]) throws(SourceError) {
        inputName = path
        do {
            for document in try YAMLLoader().load(bytes, file: path) {
                let value = try document.toValue(file: path)
                if case .array(let items) = value, case .sequence(let nodes) = document.content {
                    for (item, node) in zip(items, nodes) { records.append((item, node.location.line)) }
                } else {
                    records.append((value, document.location.line))
                }
            }
        } catch {
            throw SourceError(manager: manager, message: error.rendered(source: String(decoding: bytes, as: UTF8.self)))
        }
    }

    func next() throws(SourceError) -> Landed? {
        guard index < records.count else { return nil }
        defer { index += 1 }
        return .record(records[index].0, line: records[index].1, page: 0)
    }
}
