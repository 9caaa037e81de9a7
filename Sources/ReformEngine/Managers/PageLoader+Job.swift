import ReformSDK
import ReformSystem

/// How far an export job has got: created, polled, or its result files being read.
struct JobProgress: Sendable {
    enum Phase: Sendable {
        /// The create request is next.
        case create
        /// Polls are next; the job is `id`.
        case poll(id: String)
        /// Result file `index` of `urls` is the page being read.
        case results(urls: [String], index: Int)
    }

    var phase: Phase
    /// Polls answered so far.
    var polls = 0
    /// When the job was created (the run clock's seconds).
    var createdAt = 0.0
}

/// An export job (`job:`): the create and poll requests come before the first page; they land no
/// records and are not pages. The result files are the pages.
extension PageLoader {
    /// Whether the next request is the job's create or a poll, not a page.
    public var isJobStep: Bool {
        guard let phase = job?.phase, !finished else { return false }
        if case .results = phase { return false }
        return true
    }

    /// Takes the answer to the job's create or poll request: prepares the next request and
    /// returns how long to wait before sending it (0 when the results are ready). Throws when the
    /// job failed, its answer lacks what the `job:` names, or it ran past `max_wait`.
    public mutating func landJobStep(_ response: HTTPResponse) throws(ManagerError) -> Double {
        guard let plan = manager.job, let progress = job else { return 0 }
        let sent = next
        let step: String
        switch progress.phase {
        case .create: step = "creating the job"
        case .poll(let id): step = "polling job \(id)"
        case .results: return 0
        }
        func fail(_ kind: ManagerError.Kind, _ message: String) -> ManagerError {
            ManagerError(
                kind, manager: manager.ref.name, request: sent?.matchKey, message: "\(step): \(message)", status: response.status,
                headers: response.headers, bodyExcerpt: response.excerpt())
        }
        guard (200..<300).contains(response.status) else {
            if response.status == 401 || response.status == 403 {
                throw fail(.credentialsRejected, "status \(response.status): the service rejected the credentials")
            }
            throw fail(.httpStatus, "status \(response.status), expected 2XX")
        }
        guard let body = response.body else { throw fail(.invalidBody, "the answer is not JSON") }
        switch progress.phase {
        case .create:
            guard let id = body[path: plan.id], !id.isNull, id.stringValue ?? (id.doubleValue != nil ? id.plainText : nil) != nil else {
                throw fail(.invalidBody, "the answer has no job id at '\(plan.id)' (the job's 'id:')")
            }
            let now = clock.now()
            job?.createdAt = now
            job?.phase = .poll(id: id.plainText)
            next = PageLoader.request(plan.poll, of: manager, [("job_id", id)])
            return plan.every
        case .poll(let id):
            job?.polls += 1
            guard let statusValue = body[path: plan.status], !statusValue.isNull else {
                throw fail(.invalidBody, "the answer has no status at '\(plan.status)' (the job's 'status:')")
            }
            let status = statusValue.plainText
            if plan.failed.contains(where: { $0.caseInsensitiveCompare(status) }) {
                let reason = plan.error.flatMap { body[path: $0] }.map { $0.stringValue ?? JSON.compactString($0) }
                throw fail(.jobFailed, "the job \(status)" + (reason.map { ": \($0)" } ?? ""))
            }
            if plan.done.contains(where: { $0.caseInsensitiveCompare(status) }) {
                guard let listed = body[path: plan.results] else {
                    throw fail(
                        .jobFailed, "the job is \(status), but its answer has no result files at '\(plan.results)' (the job's 'results:')")
                }
                let urls = PageLoader.resultURLs(listed)
                guard let first = urls.first else {
                    finished = true
                    stopReason = StopReason(.allResults, limit: 0)
                    return 0
                }
                job?.phase = .results(urls: urls, index: 0)
                next = PageLoader.resultRequest(first)
                return 0
            }
            let now = clock.now()
            let waited = now - (job?.createdAt ?? 0)
            // Each wait half as long again as the one before, up to max_every.
            let wait = min(plan.every * pow(1.5, Double(min(max((job?.polls ?? 1) - 1, 0), 60))), plan.maxEvery)
            guard waited + wait <= plan.maxWait else {
                throw fail(
                    .jobFailed,
                    "the job is still '\(status)' after \(Int(waited.rounded())) s and \(job?.polls ?? 0) polls; it may take "
                        + "\(Int(plan.maxWait)) s (the job's 'max_wait'): raise it, or look at the job on the service")
            }
            next = PageLoader.request(plan.poll, of: manager, [("job_id", .string(id))])
            return wait
        case .results:
            return 0
        }
    }

    /// The request that cancels the job, while it is running and the `job:` declares one.
    public var jobCancelRequest: HTTPRequest? {
        guard let cancel = manager.job?.cancel, case .poll(let id)? = job?.phase, !finished else { return nil }
        return PageLoader.request(cancel, of: manager, [("job_id", .string(id))])
    }

    /// The result files a done answer lists: a URL, a list of URLs, or of objects with `url`
    /// (or `href`, `download_url`).
    static func resultURLs(_ value: Value?) -> [String] {
        func url(_ item: Value) -> String? {
            if let text = item.stringValue { return text.isEmpty ? nil : text }
            guard let object = item.objectValue else { return nil }
            return ["url", "href", "download_url", "downloadUrl", "link"].lazy.compactMap { object[$0]?.stringValue }.first
        }
        guard let value else { return [] }
        if let items = value.arrayValue { return items.compactMap(url) }
        return url(value).map { [$0] } ?? []
    }

    /// A result file's request: a path of the service, or an absolute URL — on another origin (a
    /// pre-signed storage URL) sent bare, without the service's credentials.
    static func resultRequest(_ url: String) -> HTTPRequest {
        var request = request(fromURL: url, method: "GET")
        request.bareAtOtherOrigin = true
        return request
    }
}

extension String {
    /// Whether `other` is this text, ignoring case.
    fileprivate func caseInsensitiveCompare(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
