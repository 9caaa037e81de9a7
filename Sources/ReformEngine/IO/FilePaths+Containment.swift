import Glibc

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
    /// applied to the rest, which does not exist and so holds no links.
    package static func canonical(_ path: String) -> String {
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
            } else {
                exists = false
                resolved = next
            }
        }
        return resolved
    }

    /// The process's working directory, or `/` if it cannot be read.
    package static func workingDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "/" }
        defer { free(cwd) }
        return String(cString: cwd)
    }
}
