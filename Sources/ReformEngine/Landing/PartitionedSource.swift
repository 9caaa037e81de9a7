import ReformSDK

/// The records of a manager that runs once per partition: partition after partition, each
/// paging on its own, in partition order whatever the concurrency.
///
/// Up to `concurrency` partitions are open at once: the one being read and the next ones, whose
/// live feeds fetch ahead meanwhile. Each record gets its partition under `_partition` (when the
/// record is an object), so mappings can read it (`_partition.repo`) and outputs show it.
final class PartitionedSource: RecordSource {
    /// Makes the source of one partition (it may start fetching at once).
    typealias Opener = (Partition) throws(SourceError) -> any RecordSource

    /// A partition that failed and was skipped (`on_error: skip`).
    struct Failure {
        /// The partition.
        let partition: Partition
        /// Why it failed.
        let error: SourceError
    }

    let inputName: String
    private let manager: String
    private let partitions: [Partition]
    private let concurrency: Int
    private let policy: PartitionFailurePolicy
    private let open: Opener
    private var opened: [(partition: Partition, source: any RecordSource)] = []
    private var nextToOpen = 0
    /// A partition read to its end and what it did. Only this is kept of it (not its source, its
    /// feed and its paging state), so a fan-out's memory does not grow with the partitions it has
    /// read (reliability audit M10).
    struct Finished {
        /// The partition.
        let partition: Partition
        /// Its pages, requests and why its paging stopped.
        let report: SourceReport
    }

    /// Partitions read to their end, in order.
    private(set) var finished: [Finished] = []
    /// Partitions skipped after a failure, in order.
    private(set) var failures: [Failure] = []
    private var bytesObserver: ((Int) -> Void)?
    /// Bytes of the partitions read to their end.
    private var bytesBefore = 0
    /// Bytes read so far, every partition included.
    private(set) var bytes = 0

    func observeBytes(_ handler: @escaping (Int) -> Void) { bytesObserver = handler }

    init(
        manager: String, inputName: String, partitions: [Partition], concurrency: Int, policy: PartitionFailurePolicy,
        open: @escaping Opener
    ) {
        self.manager = manager
        self.inputName = inputName
        self.partitions = partitions
        self.concurrency = max(1, concurrency)
        self.policy = policy
        self.open = open
    }

    /// The partition being read, when one is.
    var current: Partition? { opened.first?.partition }

    /// The source of the partition being read, when one is.
    var currentSource: (any RecordSource)? { opened.first?.source }

    func next() throws(SourceError) -> Landed? {
        while true {
            do throws(SourceError) {
                try fill()
                guard let (partition, source) = opened.first else { return nil }
                if let landed = try source.next() { return tagged(landed, partition) }
                opened.removeFirst()
                finished.append(Finished(partition: partition, report: SourceReport(source)))
                bytesBefore = bytes
            } catch {
                guard policy == .skip, let (partition, _) = opened.first else { throw failed(error) }
                opened.removeFirst()
                failures.append(Failure(partition: partition, error: error))
            }
        }
    }

    /// Opens the first partitions (up to `concurrency`), so live ones start fetching before the
    /// first record is asked for.
    func start() throws(SourceError) { try fill() }

    /// Opens partitions until `concurrency` are open (or none are left).
    private func fill() throws(SourceError) {
        while opened.count < concurrency, nextToOpen < partitions.count {
            let partition = partitions[nextToOpen]
            nextToOpen += 1
            do throws(SourceError) {
                let source = try open(partition)
                // The source keeps this closure: naming the source in it (not capturing it) lets
                // a finished partition's source, feed and task go (reliability audit M10: they
                // were kept, about 19 KB a partition).
                let id = ObjectIdentifier(source)
                source.observeBytes { [weak self] read in
                    guard let self, let first = self.opened.first, ObjectIdentifier(first.source) == id else { return }
                    self.bytes = self.bytesBefore + read
                    self.bytesObserver?(self.bytes)
                }
                opened.append((partition, source))
            } catch {
                guard policy == .skip else { throw failed(error, partition) }
                failures.append(Failure(partition: partition, error: error))
            }
        }
    }

    private func failed(_ error: SourceError, _ partition: Partition? = nil) -> SourceError {
        guard let partition = partition ?? opened.first?.partition else { return error }
        return error.inPartition(partition, of: partitions.count)
    }

    private func tagged(_ landed: Landed, _ partition: Partition) -> Landed {
        guard case .record(.object(var object), let line, let page) = landed else { return landed }
        object["_partition"] = partition.object
        return .record(.object(object), line: line, page: page)
    }
}

/// What a source that pages an API (live or replayed) did: its pages, requests and why its
/// paging stopped.
struct SourceReport {
    /// Pages landed.
    let pages: Int
    /// HTTP calls made (retries included) or exchanges replayed.
    let requests: Int
    /// The exchanges replayed from fixtures, in order (none for a live source).
    let answered: [AnsweredRequest]
    /// Why its paging stopped, when it pages.
    let stopReason: StopReason?

    /// What `source` did (nothing, for a source that does not page).
    init(_ source: any RecordSource) {
        if let fixtures = source as? FixtureSource {
            (pages, requests, answered, stopReason) = (
                fixtures.pagesLanded, fixtures.answered.count, fixtures.answered, fixtures.stopReason
            )
        } else if let live = source as? LiveSource {
            (pages, requests, answered, stopReason) = (live.pages, live.requests, [], live.stopReason)
        } else {
            (pages, requests, answered, stopReason) = (0, 0, [], nil)
        }
    }
}

extension SourceError {
    /// The error, saying which partition of how many failed.
    func inPartition(_ partition: Partition, of count: Int) -> SourceError {
        var error = self
        error.message = "partition \(partition.index + 1) of \(count) (\(partition.label)): " + message
        return error
    }
}
