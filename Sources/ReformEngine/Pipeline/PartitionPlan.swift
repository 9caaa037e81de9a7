public import ReformSDK
public import ReformYAML

/// How a manager fans out: one run of it (a partition) per item of a list, per step of a range,
/// or per record of another manager (parent → child). Declared as `for_each:`.
///
/// Each partition sets one or more of the manager's parameters and pages on its own (its own
/// paging state, budget and stop reason). Records come out in partition order, then page order,
/// whatever the concurrency.
public struct PartitionPlan: Sendable {
    /// Where the partitions come from.
    public enum Source: Sendable {
        /// One partition per value of `param`: the declared `values`, or the run's value of
        /// `param` split at commas (`--param repo=a,b,c`), which replaces them when given.
        case values(param: String, [Value])
        /// One partition per step of a number or date range (both ends included).
        case range(param: String, PartitionRange)
        /// One partition per record of `manager`: each parameter is read from that record's path.
        case parent(manager: ManagerRef, params: [(name: String, path: ValuePath)])
    }

    /// Where the partitions come from.
    public let source: Source
    /// How many partitions fetch at once (at most; the service's `connections` also bound it).
    public let concurrency: Int
    /// What a failing partition does to the run.
    public let onError: PartitionFailurePolicy
    /// The most partitions it may run (`max_partitions`, ``defaultMaxPartitions`` unless
    /// declared): a run holds every partition in memory, a few hundred bytes each, so a list,
    /// range, `--param` list or parent with more is refused rather than run out of memory.
    public let maxPartitions: Int
    /// Where `for_each` is declared.
    public let location: SourceLocation

    /// The partition limit when `max_partitions` is not declared.
    public static let defaultMaxPartitions = 100_000
    /// The highest `max_partitions` may be raised to.
    public static let maxPartitionsCeiling = 10_000_000

    /// The parameters each partition sets, in order.
    public var params: [String] {
        switch source {
        case .values(let param, _), .range(let param, _): [param]
        case .parent(_, let params): params.map(\.name)
        }
    }

    /// The parent manager, for a parent → child fan-out.
    public var parent: ManagerRef? {
        if case .parent(let manager, _) = source { return manager }
        return nil
    }
}

/// What a failing partition does to the run (`for_each.on_error`).
public enum PartitionFailurePolicy: String, Sendable, CaseIterable {
    /// The run fails; nothing is written (the default).
    case fail
    /// The partition is reported (its records so far are dropped) and the others go on; the run
    /// ends with exit status 3, as with rejected records.
    case skip
}

/// A range partitions step through: whole numbers or calendar dates, both ends included.
public enum PartitionRange: Sendable, Equatable {
    /// `from`, `from + step`, … up to `to`.
    case numbers(from: Int, to: Int, step: Int)
    /// Days from `from` to `to` (ISO 8601 dates), `stepDays` at a time, sent as `YYYY-MM-DD`.
    case days(from: String, to: String, stepDays: Int)

    /// The values of the range, in order.
    public var values: [Value] {
        switch self {
        case .numbers(let from, let to, let step):
            return stride(from: from, through: to, by: step).map { .int($0) }
        case .days(let from, let to, let step):
            guard let start = CivilDate.parse(.string(from)), let end = CivilDate.parse(.string(to)) else { return [] }
            let first = CivilDate.days(fromCivil: start.year, start.month, start.day)
            let last = CivilDate.days(fromCivil: end.year, end.month, end.day)
            return stride(from: first, through: last, by: step).map { day in
                let (y, m, d) = CivilDate.civil(fromDays: day)
                return .string(CivilDate(year: y, month: m, day: d, seconds: nil).iso8601)
            }
        }
    }
}

/// One partition of a manager: the parameters it sets, in order.
public struct Partition: Sendable, Equatable {
    /// 0-based position among the manager's partitions.
    public let index: Int
    /// The parameters it sets (name, value), in declared order.
    public let params: [(name: String, value: Value)]

    /// A partition at `index` setting `params`.
    public init(index: Int, params: [(name: String, value: Value)]) {
        self.index = index
        self.params = params
    }

    /// `repo=widgets, owner=acme`: how messages and summaries name it.
    public var label: String {
        params.map { "\($0.name)=\($0.value.plainText)" }.joined(separator: ", ")
    }

    /// The parameters as an object: what the partition's records carry under `_partition`.
    public var object: Value {
        var object = Object()
        for (name, value) in params { object[name] = value }
        return .object(object)
    }

    /// Equal when they are at the same place and set the same values.
    public static func == (a: Partition, b: Partition) -> Bool {
        a.index == b.index && a.params.map(\.name) == b.params.map(\.name) && a.params.map(\.value) == b.params.map(\.value)
    }
}
