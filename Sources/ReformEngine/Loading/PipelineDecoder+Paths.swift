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
}
