public import ReformEngine

extension Pipeline {
    /// What `reform validate` says of a pipeline that loads, and `reform studio` shows:
    /// `3 managers, 1 reformer, 3 runs`.
    public var counts: String {
        [(managers.count, "manager"), (reformers.count, "reformer"), (runs.count, "run")]
            .map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: ", ")
    }
}
