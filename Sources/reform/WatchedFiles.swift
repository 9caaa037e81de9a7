import ReformEngine
import ReformSystem

/// What `reform run --watch` looks at between runs: the pipeline file, its managers' fixtures
/// folders, its `--input` files and `--env-file`s. A change is any file there added, removed, or
/// with another size or modification time; the files are looked at four times a second (a poll:
/// it works on every file system, and a pipeline's files are few).
struct WatchedFiles {
    /// The files and folders watched.
    let paths: [String]

    /// Each watched file (a folder's, recursively) and its modification time and size.
    typealias Fingerprint = [String: String]

    /// The pipeline file and what `pipeline` (when it loaded) reads of the folder: its fixtures
    /// folders, and `inputs` and `envFiles` (standard input aside).
    init(pipelineFile: String, pipeline: Pipeline?, inputs: [String], envFiles: [String]) {
        var paths = [pipelineFile]
        for manager in pipeline?.managers ?? [] {
            if let fixtures = manager.fixtures, !paths.contains(fixtures) { paths.append(fixtures) }
        }
        for path in inputs + envFiles where path != "-" && !paths.contains(path) { paths.append(path) }
        self.paths = paths
    }

    /// The watched files as they are now.
    func fingerprint() -> Fingerprint {
        var found: Fingerprint = [:]
        for path in paths { add(path, to: &found, depth: 0) }
        return found
    }

    private func add(_ path: String, to found: inout Fingerprint, depth: Int) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            // Fixtures folders are shallow; a link loop must not keep the poll going forever.
            guard depth < 8 else { return }
            for name in FilePaths.contents(of: path) ?? [] where !name.hasPrefix(".") {
                add(FilePaths.resolve(name, against: path), to: &found, depth: depth + 1)
            }
            return
        }
        found[path] = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(info.st_size)"
    }

    /// Waits until the files differ from `last`, and returns the first that changed (a file
    /// added, changed or removed); `nil` when `stop` was requested first.
    func waitForChange(from last: Fingerprint, stop: StopToken) -> String? {
        while !stop.isRequested {
            usleep(250_000)
            let now = fingerprint()
            guard now != last else { continue }
            let changed = Set(now.keys).union(last.keys).sorted().first { now[$0] != last[$0] }
            return changed ?? paths[0]
        }
        return nil
    }
}
