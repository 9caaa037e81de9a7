import ReformYAML

/// Paths a pipeline declares stay inside its folder unless the loader allows otherwise.
extension PipelineDecoder {
    /// `relative` resolved against the pipeline's folder, or nil (with an error at `location`) when
    /// it leads outside that folder and outside paths are not allowed.
    func containedPath(_ relative: String, _ what: String, at location: SourceLocation) -> String? {
        let resolved = FilePaths.resolve(relative, against: folder)
        guard allowOutsidePaths || FilePaths.isInside(resolved, folder: folder) else {
            context.error(
                "'\(relative)' (\(what)) is outside the pipeline's folder (it resolves to \(FilePaths.canonical(resolved))); "
                    + "move it inside, or pass --allow-outside-paths to allow it",
                at: location)
            return nil
        }
        return resolved
    }

    /// Every file of a fixtures folder must resolve inside the pipeline's folder too: a symlinked
    /// file in an inside folder would otherwise be read from anywhere.
    func checkFixtureFiles(in resolved: String, _ relative: String, _ what: String, at location: SourceLocation) {
        guard !allowOutsidePaths else { return }
        for name in FilePaths.contents(of: resolved) ?? [] {
            let file = FilePaths.resolve(name, against: resolved)
            guard !FilePaths.isInside(file, folder: folder) else { continue }
            context.error(
                "'\(relative)/\(name)' (a file of 'fixtures' of \(what)) is a link to \(FilePaths.canonical(file)), outside the "
                    + "pipeline's folder; copy the file inside, or pass --allow-outside-paths to allow it",
                at: location)
        }
    }

    /// An output's file (`path:`, or the database of `sqlite:`) is written relative to the working
    /// folder and must stay inside it: an absolute path, one that climbs out with `..` (after
    /// `${VAR}` substitution), or one that a symbolic link (a folder on the way, or the file
    /// itself, even one whose target does not exist yet) leads out of the working folder is refused
    /// unless outside paths are allowed, so an untrusted pipeline cannot write anywhere.
    func checkedOutputPath(_ path: String, _ what: String, at location: SourceLocation) -> String? {
        guard !allowOutsidePaths, !["/dev/null", "/dev/stdout", "/dev/stderr"].contains(path) else { return path }
        var depth = 0
        for component in path.split(separator: "/") where component != "." {
            depth += component == ".." ? -1 : 1
            if depth < 0 { break }
        }
        guard path.hasPrefix("/") || depth < 0 else {
            let working = FilePaths.workingDirectory()
            let resolved = FilePaths.resolve(path, against: working)
            guard !FilePaths.isInside(resolved, folder: working) else { return path }
            context.error(
                "output path '\(path)' of \(what) leads outside the working folder through a symbolic link (it resolves to "
                    + "\(FilePaths.canonical(resolved))); give a path inside it that no link leads out of, "
                    + "or pass --allow-outside-paths to allow it",
                at: location)
            return nil
        }
        context.error(
            "output path '\(path)' of \(what) leads outside the working folder; give a relative path inside it "
                + "(run reform from where the outputs belong), or pass --allow-outside-paths to allow it",
            at: location)
        return nil
    }
}
