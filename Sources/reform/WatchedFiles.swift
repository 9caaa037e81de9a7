import ArgumentParser
import ReformEngine
import ReformSystem

/// What `--watch` looks at between runs: for `reform run` the pipeline file, its managers'
/// fixtures folders, its plugins' libraries, its `--input` files and `--env-file`s; for
/// `reform test` the files and folders it was given. A change is any file there added, removed,
/// or with another size or modification time, once the files hold still for a quarter second; the
/// files are looked at four times a second (a poll rather than inotify: it also sees changes on
/// network and bind-mounted folders, where inotify hears nothing, and a pipeline's files are few).
struct WatchedFiles {
    /// The files and folders watched.
    let paths: [String]

    /// These files and folders (a folder's files recursively, hidden ones aside).
    init(paths: [String]) {
        var unique: [String] = []
        for path in paths where path != "-" && !unique.contains(path) { unique.append(path) }
        self.paths = unique
    }

    /// Runs `body` (whose failures it reports itself, as an `ExitCode`), then again each time
    /// the files `files()` names change, until Ctrl-C; throws the interrupted exit status then.
    static func repeating(quiet: Bool, files: () -> WatchedFiles, _ body: () throws -> Void) throws {
        // Once for all the runs: Ctrl-C between runs stops the watch as it stops a run.
        Interruptions.install()
        while true {
            let watched = files()
            // Taken before the run, so that an edit saved while it runs starts the next one.
            let before = watched.fingerprint()
            do { try body() } catch let exit as ExitCode where Interruptions.exitStatus == nil {
                // The run said why it failed; the next change may mend it.
                _ = exit
            }
            // What the run printed reaches a pipe now, not when the watch ends.
            fflush(nil)
            if !quiet { Terminal.error("reform: watching \(watched.paths.joined(separator: ", ")) for changes (Ctrl-C stops)") }
            guard let changed = watched.waitForChange(from: before, stop: .process) else {
                throw ExitCode(Interruptions.exitStatus ?? 130)
            }
            if !quiet { Terminal.error("reform: \(changed) changed; running again") }
        }
    }

    /// Each watched file (a folder's, recursively) and its modification time and size.
    typealias Fingerprint = [String: String]

    /// The pipeline file and what `pipeline` (when it loaded) reads of the folder: its fixtures
    /// folders, and `inputs` and `envFiles` (standard input aside).
    init(pipelineFile: String, pipeline: Pipeline?, inputs: [String], envFiles: [String]) {
        // A plugin rebuilt (`reform plugins build`) is a change too.
        let plugins = (pipeline?.reformers.values.sorted { $0.name < $1.name } ?? []).compactMap { reformer -> String? in
            guard case .plugin(let plugin) = reformer.kind, plugin.library != PluginPlan.inProcess else { return nil }
            return plugin.library
        }
        self.init(paths: [pipelineFile] + (pipeline?.managers ?? []).compactMap(\.fixtures) + plugins + inputs + envFiles)
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
            var now = fingerprint()
            guard now != last else { continue }
            let changed = Set(now.keys).union(last.keys).sorted().first { now[$0] != last[$0] }
            // A save is often several writes (an editor's temporary file and rename, a build's
            // outputs one by one): wait until the files hold still for a poll.
            for _ in 0..<40 where !stop.isRequested {
                usleep(250_000)
                let settled = fingerprint()
                if settled == now { break }
                now = settled
            }
            return stop.isRequested ? nil : changed ?? paths[0]
        }
        return nil
    }
}
