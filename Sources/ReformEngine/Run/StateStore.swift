public import ReformSDK
import ReformSystem

/// What incremental managers remember between runs, in one JSON file per pipeline: per manager
/// and partition, the bookmark the next run asks from, the records at its edge, and — while a
/// run is under way — the checkpoint it resumes from; and the outputs it describes (length and
/// inode), so state and outputs are only ever taken together.
///
/// The file is the run's commit point: it is replaced atomically (written beside, synced, renamed)
/// after the outputs it describes are synced, never before.
public struct StateStore: Sendable {
    /// The state file's path.
    public let path: String
    /// The saved state, as JSON.
    public var document: Object

    /// A state at `path` holding `document` (by default an empty one: nothing remembered).
    public init(path: String, document: Object = Object()) {
        self.path = path
        self.document = document
    }

    /// The format version written in every state file.
    static let version = 1

    /// The default state file of `pipeline`: `.NAME.reform-state.json` beside its first output
    /// file (`firstOutput`), or in `folder` (the working folder when `nil`). Hidden, so engines
    /// that read an output folder (Spark, Hadoop) do not take it for data.
    public static func defaultPath(pipelineName: String, firstOutput: String?, folder: String? = nil) -> String {
        let name = ".\(pipelineName.isEmpty ? "pipeline" : pipelineName).reform-state.json"
        guard let firstOutput, firstOutput.contains("/") else { return folder.map { FilePaths.resolve(name, against: $0) } ?? name }
        return FilePaths.resolve(name, against: FilePaths.folder(of: firstOutput))
    }

    /// The state file a run of `pipeline` uses with `options` (`--state`, or the default beside
    /// the run's first output file; a device such as `/dev/null` is not a file to put it beside).
    public static func path(of pipeline: Pipeline, options: RunOptions) -> String {
        if let statePath = options.statePath { return statePath }
        let plan = pipeline.run(named: options.runName)
        let first = plan?.outputs.lazy.compactMap { OutputRuntime.path(of: $0, options: options) }
            .filter { !OutputFile.isWrittenInPlace($0) }.first
        return defaultPath(pipelineName: stateName(of: pipeline, options: options), firstOutput: first, folder: options.outputFolder)
    }

    /// The name a run of `pipeline` keeps its state under: the pipeline's, then the run's (when
    /// not `default`) and the shard's, so runs and shards writing to one place keep a state each.
    static func stateName(of pipeline: Pipeline, options: RunOptions) -> String {
        var name = pipeline.name
        if let run = pipeline.run(named: options.runName)?.name, run != "default" { name += "." + run }
        if let shard = options.shard, shard.count > 1 { name += ".shard-\(shard.index)-of-\(shard.count)" }
        return name
    }

    /// The state at `path`; an empty state when there is no file yet. A path that holds
    /// something other than a file is an error (``checkPlace(_:)``).
    public static func load(path: String) throws(RunError) -> StateStore {
        try checkPlace(path)
        guard FilePaths.isFile(path) else { return StateStore(path: path, document: Object()) }
        let bytes: [UInt8]
        do { bytes = try FilePaths.readAll(path) } catch {
            throw RunError(.system, "cannot read the state file \(path): \(error)")
        }
        guard case .object(var document)? = try? JSON.parse(bytes), case .int(StateStore.version)? = document["reform_state"] else {
            throw RunError(
                .system,
                "the state file \(path) is not a Reform state file (or is from another version); "
                    + "move it away, or run 'reform state reset' to start from nothing")
        }
        if let saved = document["checksum"] {
            document["checksum"] = nil
            guard saved.stringValue == StateStore.checksum(of: document) else {
                throw RunError(
                    .system,
                    "the state file \(path) was changed since a run wrote it (its checksum does not match): edited by hand, "
                        + "damaged, or written by another program; Reform does not guess what a changed bookmark or output length "
                        + "means. Run 'reform state reset' (or --full-refresh) to start from nothing, or put the saved file back")
            }
        }
        return StateStore(path: path, document: document)
    }

    /// A hash (``FNV1a``) of `document` written compactly.
    static func checksum(of document: Object) -> String {
        // Bytes, not a String: a 100 MB state is not copied once more to be hashed.
        var bytes: [UInt8] = []
        JSON.write(.object(document), into: &bytes)
        return bytes.withUnsafeBufferPointer { FNV1a.hex($0) }
    }

    /// Throws unless `path` is a regular file or nothing yet: a FIFO would block the run for
    /// ever when the state is written (opened for writing, it waits for a reader), and a folder
    /// or a device cannot hold a state (audit r2 L5).
    public static func checkPlace(_ path: String) throws(RunError) {
        guard FilePaths.exists(path), !FilePaths.isFile(path) else { return }
        let what = FilePaths.isDirectory(path) ? "a folder" : "not a regular file (a FIFO, socket or device)"
        throw RunError(
            .system, "the state file \(path) is \(what); give --state the path of a file (it need not exist yet)")
    }

    /// Writes the state atomically (beside, synced, renamed).
    public func save() throws(RunError) {
        var document = document
        document["reform_state"] = .int(StateStore.version)
        document["checksum"] = nil
        // Any edit of the file is noticed when it is read (``load(path:)``).
        document["checksum"] = .string(StateStore.checksum(of: document))
        do {
            // Private: a saved request may hold what a server echoed back (a key in a Link URL).
            let file = try OutputFile.atomic(path: path, privateFile: true)
            JSON.writePretty(.object(document), into: &file.buffer)
            file.buffer.append(UInt8(ascii: "\n"))
            try file.commit()
        } catch {
            throw RunError(.output, "cannot save the state file: \(error)", cause: error)
        }
    }

    /// The bookmark of each partition of `manager` (`""` when it does not fan out): what its next
    /// run asks from.
    public func bookmarks(of manager: String) -> [String: Value] {
        var out: [String: Value] = [:]
        for member in document["managers"]?.objectValue?[manager]?.objectValue?.members ?? [] {
            if let bookmark = member.value.objectValue?["bookmark"], !bookmark.isNull { out[member.key] = bookmark }
        }
        return out
    }

    /// The managers the state knows, in the order they were saved.
    public var managers: [String] { document["managers"]?.objectValue?.keys ?? [] }

    /// The state of `manager`'s partition `partition` (`""` when it does not fan out).
    func partition(_ partition: String, of manager: String) -> Object {
        document["managers"]?.objectValue?[manager]?.objectValue?[partition]?.objectValue ?? Object()
    }

    /// Replaces the state of one partition.
    ///
    /// In place: the objects are taken out of the document (left `null` for a moment, so their
    /// places stay) before they change, so they are not copied. Copied, a run that saves 400,000
    /// partitions copied them all for each one: hours for a 60 MB state file (audit r2 L16).
    mutating func setPartition(_ partition: String, of manager: String, to value: Object) {
        var managers = document["managers"]?.objectValue ?? Object()
        document["managers"] = .null
        var partitions = managers[manager]?.objectValue ?? Object()
        managers[manager] = .null
        partitions[partition] = .object(value)
        managers[manager] = .object(partitions)
        document["managers"] = .object(managers)
    }

    /// Forgets `manager` (every manager when `nil`), or only its `partition` (the label `reform
    /// state show` lists), and the outputs with it, so the next run starts from nothing.
    public mutating func reset(manager: String?, partition: String? = nil) {
        guard let manager else {
            document = Object()
            return
        }
        var managers = document["managers"]?.objectValue ?? Object()
        if let partition, var partitions = managers[manager]?.objectValue {
            partitions[partition] = nil
            managers[manager] = partitions.isEmpty ? nil : .object(partitions)
        } else {
            managers[manager] = nil
        }
        document["managers"] = .object(managers)
        document["outputs"] = nil
        document["running"] = nil
    }

    /// The saved outputs: path → length and inode.
    var outputs: [String: (bytes: Int, inode: Int)] {
        var out: [String: (Int, Int)] = [:]
        for member in document["outputs"]?.objectValue?.members ?? [] {
            guard case .int(let bytes)? = member.value.objectValue?["bytes"], case .int(let inode)? = member.value.objectValue?["inode"]
            else { continue }
            out[member.key] = (bytes, inode)
        }
        return out
    }
}

/// The inode and length of the file at `path`, when it is a regular file.
func fileIdentity(_ path: String) -> (inode: Int, bytes: Int)? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return (Int(info.st_ino), Int(info.st_size))
}
