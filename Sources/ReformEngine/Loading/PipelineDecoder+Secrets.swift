import ReformYAML

/// `secrets:` of a pipeline: the command that answers `${exec:NAME}`.
extension PipelineDecoder {
    func decodeSecrets(_ node: YAMLNode) -> SecretsCommand? {
        guard let m = context.mapping(node, "'secrets'", allowed: PipelineSchema.secrets.keyNames),
            let commandNode = context.requireKey("command", in: m, "'secrets' (the program that answers ${exec:NAME})"),
            var command = context.stringList(commandNode, "'command' in 'secrets'")
        else { return nil }
        guard let program = command.first, !program.isEmpty else {
            context.error(
                "'command' in 'secrets' is empty; name the program, like [./secrets.sh] or [vault-secrets, --json]",
                at: commandNode.location)
            return nil
        }
        let written = command.joined(separator: " ")
        // A program written as a path is the pipeline folder's; a bare name is looked up in PATH.
        if program.contains("/") {
            guard let resolved = containedPath(program, "the secrets command", at: commandNode.location) else { return nil }
            command[0] = resolved
        }
        let timeout = m["timeout"].flatMap { context.positiveDuration($0, "'timeout' in 'secrets'") } ?? 10
        return SecretsCommand(command: command, written: written, timeout: timeout, location: node.location)
    }
}
