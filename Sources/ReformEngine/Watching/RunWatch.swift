import ReformConcurrency
import ReformSDK

/// Watches one run as it goes: every page each manager lands (its request and response, secrets
/// redacted as `--record` redacts them), the first records each manager lands and each reformer
/// of each output makes, the records a reformer rejects and why, the counts, and the services'
/// events (retries, rate-limit waits). `reform studio` shows it; a program can show it too.
///
/// ```swift
/// let watch = RunWatch()
/// var options = RunOptions()
/// options.watch = watch
/// let summary = try await Runner(pipeline: pipeline, options: options).run()
/// for page in watch.snapshot().pages { print(page.manager, page.page, page.status, page.records) }
/// ```
///
/// What it keeps is bounded by ``Limits``: the last pages, and the first records of each step.
/// A watched run takes the general path (no compiled chain, no `--jobs` workers), so that every
/// record passes each step where it can be seen; a run without a watch pays nothing for it.
/// It is safe to read (``snapshot()``, ``changes``) from any thread while the run goes on.
public final class RunWatch: Sendable {
    /// How much a watch keeps.
    public struct Limits: Sendable {
        /// The last pages kept (of every manager together); older ones are let go.
        public var pages = 200
        /// The first records kept per manager (as landed) and per reformer of each output.
        public var recordsPerStep = 20
        /// The first rejected records kept per reformer of each output.
        public var rejectionsPerStep = 20
        /// The most bytes of a response body kept, pretty-printed; a longer one is cut.
        public var bodyBytes = 256 * 1024
        /// The last service events kept.
        public var events = 200

        /// The default limits.
        public init() {}
    }

    /// What this watch keeps.
    public let limits: Limits
    private let state = Guarded(RunWatchSnapshot())

    /// A watch that keeps at most `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Everything watched so far.
    public func snapshot() -> RunWatchSnapshot { state.withLock { $0 } }

    /// How many times what is watched has changed: a reader polls it to know when to read again.
    public var changes: Int { state.withLock { $0.changes } }

    private func change(_ body: (inout RunWatchSnapshot) -> Void) {
        state.withLock { snapshot in
            body(&snapshot)
            snapshot.changes += 1
        }
    }

    // MARK: What the run reports

    /// A page `manager` landed (live, or replayed from its fixtures).
    func page(
        _ landing: Landing, manager: String, partition: String?, replayed: Bool, baseURL: String?, seconds: Double?,
        redact: (String) -> String
    ) {
        keep(
            WatchedPage(
                landing: landing, manager: manager, partition: partition, replayed: replayed, baseURL: baseURL, seconds: seconds,
                bodyLimit: limits.bodyBytes, redact: redact))
    }

    /// The failure that ended `manager`'s pages at page `page` (a status it gave up on, a body it
    /// could not read): shown as a page with what came back and the error.
    func failedPage(
        _ failure: ManagerError, page: Int, manager: String, partition: String?, replayed: Bool, baseURL: String?,
        redact: (String) -> String
    ) {
        keep(
            WatchedPage(
                failure: failure, page: page, manager: manager, partition: partition, replayed: replayed, baseURL: baseURL,
                bodyLimit: limits.bodyBytes, redact: redact))
    }

    /// Numbers `page` among the pages seen and keeps it, letting go of the oldest past the limit.
    private func keep(_ page: WatchedPage) {
        change { snapshot in
            snapshot.pagesSeen += 1
            var page = page
            page.number = snapshot.pagesSeen
            snapshot.pages.append(page)
            if snapshot.pages.count > limits.pages { snapshot.pages.removeFirst(snapshot.pages.count - limits.pages) }
        }
    }

    /// A record `manager` landed, before any reformer.
    func landed(_ record: Record, partition: String?) {
        let limit = limits.recordsPerStep
        change { snapshot in
            let index = snapshot.managerIndex(record.origin.manager.name)
            snapshot.managers[index].records += 1
            if snapshot.managers[index].samples.count < limit {
                snapshot.managers[index].samples.append(WatchedRecord(record, partition: partition))
                snapshot.traced.insert(.init(manager: record.origin.manager.name, sequence: record.origin.sequence))
            }
        }
    }

    /// Output `output` (named `name`, for messages) runs the reformers `stages`, in order, each
    /// with its steps when it is a `steps:` reformer (their names and lines), and renders rows of
    /// `rowShape` when it has one.
    func output(
        _ output: Int, name: String, stages: [(name: String, steps: [(name: String, line: Int)])],
        rowShape: (name: String, columns: [String])? = nil
    ) {
        change { snapshot in
            while snapshot.outputs.count <= output {
                snapshot.outputs.append(WatchedOutput(name: "", stages: []))
            }
            snapshot.outputs[output] = WatchedOutput(
                name: name,
                stages: stages.map { stage in
                    var watched = WatchedStage(name: stage.name)
                    watched.steps = stage.steps.map { WatchedStage(name: $0.name, line: $0.line) }
                    return watched
                })
            snapshot.outputs[output].rowShape = rowShape
        }
    }

    /// Output `output` wrote a row of `cells`, filled by the record at `origin`.
    func wroteRow(_ cells: [Value], origin: Origin?, output: Int) {
        let limit = limits.recordsPerStep
        change { snapshot in
            guard snapshot.outputs.indices.contains(output) else { return }
            snapshot.outputs[output].rowsWritten += 1
            if snapshot.outputs[output].rows.count < limit, let origin {
                snapshot.outputs[output].rows.append(WatchedRecord(Record(.array(cells), origin: origin), partition: nil))
            }
        }
    }

    /// Where a record is in a run's chains: output, reformer and, inside a `steps:` reformer, step.
    struct Place {
        let output: Int
        let stage: Int
        var step: Int? = nil
    }

    /// The stage or step at `place`, changed by `body` (told whether the record at hand is
    /// traced), when the run registered it.
    private func change(at place: Place, of record: Record? = nil, _ body: (inout WatchedStage, Bool) -> Void) {
        change { snapshot in
            let traced =
                record.map {
                    snapshot.traced.contains(.init(manager: $0.origin.manager.name, sequence: $0.origin.sequence))
                } ?? false
            guard snapshot.outputs.indices.contains(place.output),
                snapshot.outputs[place.output].stages.indices.contains(place.stage)
            else { return }
            if let step = place.step {
                guard snapshot.outputs[place.output].stages[place.stage].steps.indices.contains(step) else { return }
                body(&snapshot.outputs[place.output].stages[place.stage].steps[step], traced)
            } else {
                body(&snapshot.outputs[place.output].stages[place.stage], traced)
            }
        }
    }

    /// The reformer or step at `place` took a record (what it made comes through
    /// ``made(_:at:)``, what it refused through ``rejected(_:at:error:)``).
    func took(at place: Place) {
        change(at: place) { stage, _ in stage.recordsIn += 1 }
    }

    /// The reformer or step at `place` made `record`.
    func made(_ record: Record, at place: Place) {
        let limit = limits.recordsPerStep
        change(at: place, of: record) { stage, traced in
            stage.recordsOut += 1
            if stage.samples.count < limit {
                stage.samples.append(WatchedRecord(record, partition: nil))
            } else if traced, stage.traced.count < RunWatch.tracedPerStep * limit {
                stage.traced.append(WatchedRecord(record, partition: nil))
            }
        }
    }

    /// The reformer or step at `place` rejected `record` with `error`.
    func rejected(_ record: Record, at place: Place, error: RecordError) {
        let limit = limits.rejectionsPerStep
        change(at: place, of: record) { stage, traced in
            stage.rejected += 1
            let kept = stage.rejections.count < limit
            guard kept || (traced && stage.tracedRejections.count < RunWatch.tracedPerStep * limits.recordsPerStep) else { return }
            let rejection = WatchedRejection(record: WatchedRecord(record, partition: nil), code: error.code, message: error.message)
            if kept { stage.rejections.append(rejection) } else { stage.tracedRejections.append(rejection) }
        }
    }

    /// How many traced records a step keeps beyond its samples, per record it samples: a step
    /// may make several records of one (`explode`), but never keeps more than this.
    static let tracedPerStep = 4

    /// A service event of the run (a retry's wait, a rate limit, a token refresh).
    func event(_ event: ServiceEvent) {
        let text =
            switch event {
            case .unreachable(let service, let manager, let message): "\(manager): service \(service) unreachable: \(message)"
            case .credentialsRejected(let service, let manager, let status):
                "\(manager): service \(service) refused the credentials (status \(status))"
            case .tokenRefreshed(let service): "service \(service): access token fetched"
            case .rateLimited(let service, let manager, let retryAfter):
                "\(manager): service \(service) answered 429" + (retryAfter.map { "; Retry-After \($0) s" } ?? "")
            }
        change { snapshot in
            snapshot.events.append(text)
            if snapshot.events.count > limits.events { snapshot.events.removeFirst(snapshot.events.count - limits.events) }
        }
    }
}
