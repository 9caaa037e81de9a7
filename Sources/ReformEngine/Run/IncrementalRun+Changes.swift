import ReformSDK
import ReformSystem

/// What an incremental run checks before it appends to the outputs its state describes: that the
/// pipeline still means what it meant when the state was saved (the same managers, keys and
/// cursors, outputs of the same format and columns) and that nobody else wrote to the outputs
/// since — else appending would duplicate records, mix shapes in one file or cut another
/// program's bytes (reliability audit round 2, M7 and L1). Each is refused with what changed and
/// how to go on.
extension IncrementalRun {
    /// How many bytes at the end of an output its state remembers a hash of.
    static let tailBytes = 4096

    /// What the state saves of the run's incremental managers: per manager, the cursor, its format
    /// and the key (whose values make the edge's identities).
    static func managerShapes(_ plans: [String: IncrementalPlan]) -> Value {
        var object = Object()
        for name in plans.keys.sorted() {
            guard let plan = plans[name] else { continue }
            var shape: Object = ["cursor": .string("\(plan.cursor)"), "format": .string(plan.format.rawValue)]
            shape["key"] = plan.key.map { .string("\($0)") } ?? .null
            object[name] = .object(shape)
        }
        return .object(object)
    }

    /// What the state saves of an output's shape: its format and, for csv, its columns.
    static func outputShape(of plan: OutputPlan, format: OutputFormat) -> Object {
        var shape: Object = ["format": .string(format.rawValue)]
        if format == .csv {
            let columns = plan.rows?.columns.map(\.header) ?? plan.keys ?? []
            shape["columns"] = .array(columns.map { .string($0) })
        }
        return shape
    }

    /// Refuses to append when the pipeline changed in a way that would duplicate records or mix
    /// shapes, or another program changed an output; returns what to warn about (outputs the
    /// state no longer describes, fetched again in full).
    static func checkUnchanged(
        store: StateStore, plans: [String: IncrementalPlan], outputs: [(path: String, shape: Object)], described: Bool, resuming: Bool
    ) throws(RunError) -> [String] {
        let saved = store.outputs
        guard !saved.isEmpty else { return [] }
        guard described else {
            // (A resumed run goes on with the files it was writing.)
            if resuming { return [] }
            return outputs.compactMap { output in
                guard let mark = saved[output.path] else { return nil }
                let now = fileIdentity(output.path)
                let why =
                    now == nil
                    ? "is gone"
                    : now?.inode != mark.inode ? "was replaced by another file" : "is shorter than the \(mark.bytes) bytes it had"
                return "\(output.path) \(why) since the last run, so the state no longer describes it: everything was fetched again "
                    + "and the output written anew"
            }
        }
        let how = "run with --full-refresh to fetch everything again and write the outputs anew"
        if let shapes = store.document["pipeline"]?.objectValue?["managers"]?.objectValue {
            let before = Set(shapes.keys)
            let now = Set(plans.keys)
            let gone = before.subtracting(now).sorted()
            let new = now.subtracting(before).sorted()
            if !gone.isEmpty, !new.isEmpty {
                throw RunError(
                    .source,
                    "the state \(store.path) was saved by manager\(gone.count == 1 ? "" : "s") \(quoted(gone)), and this run's incremental "
                        + "manager\(new.count == 1 ? " is" : "s are") \(quoted(new)): a renamed manager starts from nothing and would "
                        + "write again what the outputs hold; \(how), or, if \(quoted(gone)) was removed rather than renamed, forget it "
                        + "with 'reform state reset PIPELINE --manager \(gone[0])'")
            }
            for name in plans.keys.sorted() {
                guard let old = shapes[name]?.objectValue, let current = managerShapes(plans).objectValue?[name]?.objectValue else {
                    continue
                }
                for field in ["key", "cursor", "format"] where old[field] != current[field] {
                    throw RunError(
                        .source,
                        "the incremental \(field) of manager '\(name)' is \(describe(current[field])) now and was \(describe(old[field])) "
                            + "when the state \(store.path) was saved: the records the last run landed would not be recognised and "
                            + "would be written again; \(how), or put the \(field) back")
                }
            }
        }
        for output in outputs {
            guard let mark = saved[output.path], let now = fileIdentity(output.path) else { continue }
            if let old = store.document["outputs"]?.objectValue?[output.path]?.objectValue,
                let format = old["format"], format != output.shape["format"] || old["columns"] != output.shape["columns"]
            {
                let was = shapeText(old)
                throw RunError(
                    .output,
                    "\(output.path) was written as \(was) by the last run and would be \(shapeText(output.shape)) now: appending would "
                        + "mix rows of two shapes in one file; \(how), or write the new shape to another path")
            }
            if !resuming, now.bytes > mark.bytes {
                throw RunError(
                    .output,
                    "\(output.path) has \(now.bytes - mark.bytes) bytes more than the last run left (\(mark.bytes)), and no run stopped "
                        + "in the middle of it: another program wrote to it (or the state was edited); an incremental run appends where it "
                        + "left off and would cut them. Move those bytes elsewhere, or \(how)")
            }
            if case .string(let tail)? = store.document["outputs"]?.objectValue?[output.path]?.objectValue?["tail"],
                tailHash(of: output.path, bytes: mark.bytes) != tail
            {
                throw RunError(
                    .output,
                    "\(output.path) was changed since the last run (its last bytes are not the ones the run wrote): another program "
                        + "edited it, or the state was edited; appending to it would not continue what Reform wrote: \(how)")
            }
        }
        return []
    }

    /// A hash (``FNV1a``) of the last ``tailBytes`` bytes before `bytes` of the file
    /// at `path`; `nil` when they cannot be read.
    static func tailHash(of path: String, bytes: Int) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let count = min(tailBytes, bytes)
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return pread(fd, base + done, count - done, off_t(bytes - count + done))
            }
            guard n > 0 else { return nil }
            done += n
        }
        return FNV1a.hex(buffer)
    }

    private static func quoted(_ names: [String]) -> String {
        names.map { "'\($0)'" }.joined(separator: ", ")
    }

    private static func describe(_ value: Value?) -> String {
        guard let value, !value.isNull else { return "none" }
        return "'\(value.plainText)'"
    }

    private static func shapeText(_ shape: Object) -> String {
        let format = shape["format"]?.stringValue ?? "?"
        guard let columns = shape["columns"]?.arrayValue else { return format }
        return "\(format) with columns \(columns.map(\.plainText).joined(separator: ", "))"
    }
}
