import ReformSDK
import ReformYAML

/// `incremental:` of a manager: its cursor, how the bookmark is sent, and its checkpoints.
extension PipelineDecoder {
    static let incrementalKeys = PipelineSchema.incremental.keyNames
    /// Pages between checkpoints when `checkpoint:` is not declared.
    static let defaultCheckpointPages = 10

    func decodeIncremental(_ node: YAMLNode, _ what: String) -> IncrementalPlan? {
        let owner = "'incremental' of \(what)"
        guard let m = context.mapping(node, owner, allowed: PipelineDecoder.incrementalKeys),
            let cursorNode = context.requireKey("cursor", in: m, owner + " (the record field that orders changes, like updated_at)"),
            let cursor = context.path(cursorNode, "'cursor' in \(owner)"),
            let paramNode = context.requireKey("param", in: m, owner + " (the parameter the bookmark is sent as, like since)"),
            let param = context.string(paramNode, "'param' in \(owner)")
        else { return nil }
        let format = m["format"].flatMap { context.choice($0, "cursor format", as: IncrementalPlan.Format.self) } ?? .iso8601
        var lookback = 0.0
        if let node = m["lookback"], let seconds = context.duration(node, "'lookback' in \(owner)") {
            lookback = seconds
            if seconds > 0 && (format == .opaque || format == .number) {
                context.error(
                    "'lookback' in \(owner) needs a time format (iso8601, epoch-seconds, epoch-ms), not \(format.rawValue)",
                    at: node.location)
            }
        }
        let key = m["key"].flatMap { context.path($0, "'key' in \(owner)") }
        let start = m["start"].flatMap { context.value($0, "'start' in \(owner)") }
        if let start, let node = m["start"], IncrementalCursor(format: format).position(of: start) == nil {
            context.error("'start' in \(owner) is not a \(format.rawValue) cursor value: '\(start.plainText)'", at: node.location)
        }
        return IncrementalPlan(
            cursor: cursor, param: param, format: format, lookback: lookback, key: key, start: start,
            checkpointPages: m["checkpoint"].flatMap {
                context.int($0, "'checkpoint' in \(owner) (pages between checkpoints)", in: 1...1_000_000)
            }
                ?? PipelineDecoder.defaultCheckpointPages,
            location: node.location)
    }
}
