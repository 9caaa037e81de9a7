import ReformSDK

/// Parent → child fan-outs: the partitions a parent's records make.
extension PartitionPlan {
    /// Reads the partition parameters of a parent → child fan-out out of one record the parent
    /// landed; a failure (with the reason) when the record lacks one of the fields.
    func params(fromParentRecord record: Value) -> Result<[(name: String, value: Value)], RecordError> {
        guard case .parent(let parent, let params) = source else { return .success([]) }
        var values: [(name: String, value: Value)] = []
        for (name, path) in params {
            guard let value = record[path: path], !value.isNull else {
                return .failure(
                    RecordError(
                        code: "missing-partition-field",
                        message: "the record of '\(parent.name)' has no '\(path)', which sets parameter '\(name)' of its child; "
                            + "no partition was made for it"))
            }
            guard value.arrayValue == nil, value.objectValue == nil else {
                return .failure(
                    RecordError(
                        code: "invalid-partition-field",
                        message:
                            "'\(path)' of the record of '\(parent.name)' is a list or an object, not a value parameter '\(name)' can take"))
            }
            values.append((name, value))
        }
        return .success(values)
    }
}

/// The distinct partitions a child gets from its parent's records, in the order they landed.
struct PartitionCollector {
    /// The partitions so far.
    private(set) var list: [Partition] = []
    private var seen: Set<String> = []

    /// Adds a partition setting `params`, unless an earlier record made the same one; `false`
    /// (nothing added) when it would be a new one past `limit`.
    @discardableResult
    mutating func add(_ params: [(name: String, value: Value)], limit: Int = .max) -> Bool {
        let key = params.map { JSON.compactString($0.value) }.joined(separator: "\u{0}")
        guard !seen.contains(key) else { return true }
        guard list.count < limit else { return false }
        seen.insert(key)
        list.append(Partition(index: list.count, params: params))
        return true
    }
}
