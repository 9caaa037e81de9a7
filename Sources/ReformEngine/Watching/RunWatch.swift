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
        let page = WatchedPage(
            landing: landing, manager: manager, partition: partition, replayed: replayed, baseURL: baseURL, seconds: seconds,
            bodyLimit: limits.bodyBytes, redact: redact)
        change { snapshot in
            snapshot.pagesSeen += 1
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
            }
        }
    }

    /// Output `output` (named `name`, for messages) runs the reformers `stages`, in order.
    func output(_ output: Int, name: String, stages: [String]) {
        change { snapshot in
            while snapshot.outputs.count <= output {
                snapshot.outputs.append(WatchedOutput(name: "", stages: []))
            }
            snapshot.outputs[output] = WatchedOutput(name: name, stages: stages.map { WatchedStage(reformer: $0) })
        }
    }

    /// Reformer `stage` of output `output` took a record (what it made comes through
    /// ``made(_:output:stage:)``, what it refused through ``rejected(_:output:stage:error:)``).
    func took(output: Int, stage: Int) {
        change { snapshot in
            guard snapshot.outputs.indices.contains(output), snapshot.outputs[output].stages.indices.contains(stage) else { return }
            snapshot.outputs[output].stages[stage].recordsIn += 1
        }
    }

    /// Reformer `stage` of output `output` made `record`.
    func made(_ record: Record, output: Int, stage: Int) {
        let limit = limits.recordsPerStep
        change { snapshot in
            guard snapshot.outputs.indices.contains(output), snapshot.outputs[output].stages.indices.contains(stage) else { return }
            snapshot.outputs[output].stages[stage].recordsOut += 1
            if snapshot.outputs[output].stages[stage].samples.count < limit {
                snapshot.outputs[output].stages[stage].samples.append(WatchedRecord(record, partition: nil))
            }
        }
    }

    /// Reformer `stage` of output `output` rejected `record` with `error`.
    func rejected(_ record: Record, output: Int, stage: Int, error: RecordError) {
        let limit = limits.rejectionsPerStep
        change { snapshot in
            guard snapshot.outputs.indices.contains(output), snapshot.outputs[output].stages.indices.contains(stage) else { return }
            snapshot.outputs[output].stages[stage].rejected += 1
            if snapshot.outputs[output].stages[stage].rejections.count < limit {
                snapshot.outputs[output].stages[stage].rejections.append(
                    WatchedRejection(record: WatchedRecord(record, partition: nil), code: error.code, message: error.message))
            }
        }
    }

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
