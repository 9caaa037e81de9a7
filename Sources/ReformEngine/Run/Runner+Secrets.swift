import ReformSDK
import ReformSystem

/// `${exec:NAME}`: before a live or recording run sends anything, the pipeline's secrets command
/// is asked, once, for every name the services and tables use (Vector's exec-backend protocol),
/// and the answers join the run's environment as `exec:NAME`, secrets like any variable.
extension Runner {
    /// A runner whose environment holds the secrets command's answers, or `nil` when there is
    /// nothing to ask (no `${exec:…}`, a replay, or the answers already there).
    func withExecSecrets() throws(RunError) -> Runner? {
        guard options.mode != .replay, let answered = try pipeline.answeringExecSecrets(in: options.environment) else { return nil }
        var options = options
        options.environment = answered
        return Runner(pipeline: pipeline, options: options)
    }
}

extension Pipeline {
    /// `environment` with the secrets command's answers for every `${exec:NAME}` the services,
    /// interceptors and table URLs use (as `exec:NAME`), or `nil` when there is nothing to ask;
    /// throws when the command cannot answer. What a live run does first, and what
    /// `reform validate --check-env` checks.
    public func answeringExecSecrets(in environment: [String: String]) throws(RunError) -> [String: String]? {
        let prefix = InterpolatedString.execPrefix
        var names: [String] = []
        for service in services { names += service.secretVariables }
        for manager in managers { names += manager.interceptors.secretVariables }
        for run in runs {
            for output in run.outputs {
                if let table = output.table, let parsed = try? InterpolatedString(parsing: table.database) { names += parsed.variables }
            }
        }
        var wanted: [String] = []
        for name in names where name.hasPrefix(prefix) && environment[name] == nil && !wanted.contains(name) {
            wanted.append(name)
        }
        guard !wanted.isEmpty else { return nil }
        let keys = wanted.map { String($0.dropFirst(prefix.count)) }
        guard let command = secretsCommand else {
            throw RunError(.secrets, "the pipeline uses ${exec:\(keys[0])}, but declares no 'secrets: { command: … }' to answer it")
        }
        var answered = environment
        for (key, value) in try SecretsAnswers.fetch(keys, from: command) { answered[prefix + key] = value }
        return answered
    }
}

/// One call of the secrets command and the reading of its answer.
enum SecretsAnswers {
    static func fetch(_ keys: [String], from command: SecretsCommand) throws(RunError) -> [String: String] {
        var request = Object()
        request["version"] = "1.0"
        request["secrets"] = .array(keys.map(Value.string))
        let program = command.written
        func fail(_ message: String) -> RunError { RunError(.secrets, "the secrets command (\(program)): \(message)") }
        let outcome: ChildProcess.Outcome
        switch ChildProcess.run(command.command, input: Array(JSON.compactString(.object(request)).utf8), seconds: command.timeout) {
        case .success(let finished): outcome = finished
        case .failure(.cannotStart(let reason)): throw fail("cannot start: \(reason)")
        case .failure(.timedOut): throw fail("gave no answer within \(command.timeout.clean) s; it was stopped")
        }
        guard outcome.status == 0 else {
            let said = String(decoding: outcome.stderr.prefix(500), as: UTF8.self)
            throw fail("exited with status \(outcome.status)" + (said.isEmpty ? "" : ": \(said)"))
        }
        guard let answer = (try? JSON.parse(outcome.stdout))?.objectValue else {
            throw fail("did not answer a JSON object ({\"NAME\": {\"value\": …, \"error\": null}})")
        }
        var values: [String: String] = [:]
        for key in keys {
            let entry = answer[key]?.objectValue
            if let error = entry?["error"]?.stringValue {
                throw fail("could not give '\(key)': \(error)")
            }
            guard let value = entry?["value"]?.stringValue else {
                throw fail("gave no value for '\(key)'")
            }
            values[key] = value
        }
        return values
    }
}
