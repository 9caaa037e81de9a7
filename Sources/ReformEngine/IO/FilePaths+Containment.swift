import ReformSystem

/// Keeping the paths a pipeline declares (fixtures, plugin folders) inside the pipeline's folder.
extension FilePaths {
    /// Whether `path` lies in `folder` (or is it) once both are absolute, `.` and `..` are applied
    /// and every symlink that exists is resolved, so `../../etc/passwd` and a link out are caught.
    package static func isInside(_ path: String, folder: String) -> Bool {
        let base = canonical(folder)
        let target = canonical(path)
        return target == base || target.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }

    /// `path` made absolute with symlinks resolved (realpath) as far as it exists and `.` and `..`
    /// applied to the rest, which does not exist and so holds no links, except a dangling link
    /// (`out/app.db -> /elsewhere/app.db`), which is followed to where creating the file would put it.
    package static func canonical(_ path: String) -> String {
        canonical(path, linksLeft: 40)
    }

    /// ``canonical(_:)``, following at most `linksLeft` dangling links (a loop ends there).
    private static func canonical(_ path: String, linksLeft: Int) -> String {
        let absolute = path.hasPrefix("/") ? path : workingDirectory() + "/" + path
        var resolved = "/"
        var exists = true
        for component in absolute.split(separator: "/") where component != "." {
            if component == ".." {
                resolved = folder(of: resolved)
                continue
            }
            let next = resolved.hasSuffix("/") ? resolved + component : resolved + "/" + component
            if exists, let real = realpath(next, nil) {
                resolved = String(cString: real)
                free(real)
            } else if exists, linksLeft > 0, let target = linkTarget(next) {
                resolved = canonical(resolve(target, against: resolved), linksLeft: linksLeft - 1)
                exists = false
            } else {
                exists = false
                resolved = next
            }
        }
        return resolved
    }

    /// What the symbolic link at `path` points to, or nil when `path` is not a link.
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The process's working directory, or `/` if it cannot be read.
    package static func workingDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "/" }
        defer { free(cwd) }
        return String(cString: cwd)
    }
}
