import ReformSDK
public import ReformYAML

/// A loaded, completely checked pipeline: the immutable plan a run executes.
///
/// Build one with ``PipelineLoader``; every reference in it (services, managers, reformers, rows)
/// has been resolved and every reformer chain's keys checked, so running it cannot fail on the
/// file's structure, only on data.
public struct Pipeline: Sendable {
    /// The pipeline file as the user named it.
    public let file: String
    /// The folder that relative paths in the file (fixtures, inputs) are resolved against.
    public let folder: String
    /// The pipeline's `name:`.
    public let name: String
    /// Services by position.
    public let services: [ServicePlan]
    /// Managers by position; a manager's `ManagerRef.index` is its position here.
    public let managers: [ManagerPlan]
    /// Reformers by name.
    public let reformers: [String: ReformerPlan]
    /// Row shapes by name.
    public let rows: [String: RowsPlan]
    /// Runs in the order written; the first is the default when there is no run called `default`.
    public let runs: [RunPlan]
    /// Warnings found while loading (the pipeline works, but maybe not as meant).
    public private(set) var warnings: [Diagnostic] = []
    /// The command that answers `${exec:NAME}` references (`secrets:`), when declared.
    public var secretsCommand: SecretsCommand? = nil

    func with(warnings: [Diagnostic]) -> Pipeline {
        var copy = self
        copy.warnings = warnings
        return copy
    }

    /// The manager called `name`.
    public func manager(named name: String) -> ManagerPlan? {
        managers.first { $0.ref.name == name }
    }

    /// The run called `name`; with `nil`, the run called `default` or else the first one.
    public func run(named name: String?) -> RunPlan? {
        if let name { return runs.first { $0.name == name } }
        return runs.first { $0.name == "default" } ?? runs.first
    }
}
