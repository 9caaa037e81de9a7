import ReformSDK
import ReformYAML

/// `job:` of a manager: an asynchronous export (create, poll, read the result files).
extension PipelineDecoder {
    func decodeJob(_ node: YAMLNode, _ what: String, known: Set<String>) -> JobPlan? {
        let section = "'job' of \(what)"
        guard let m = context.mapping(node, section, allowed: PipelineSchema.job.keyNames),
            let createNode = context.requireKey("create", in: m, section + " (the request that starts the export)"),
            let (create, _) = decodeJobRequest(
                createNode, "'create' in \(section)", PipelineSchema.jobCreate, defaultMethod: "POST", known: known),
            let pollNode = context.requireKey("poll", in: m, section + " (the request that asks the job's status, like /exports/{job_id})"),
            let (poll, p) = decodeJobRequest(
                pollNode, "'poll' in \(section)", PipelineSchema.jobPoll, defaultMethod: "GET", known: ["job_id"]),
            let resultsNode = context.requireKey("results", in: m, section + " (where the done answer lists the result files)"),
            let results = context.path(resultsNode, "'results' in \(section)")
        else { return nil }
        if !poll.path.contains("{job_id}") {
            context.error(
                "'poll' in \(section) has no {job_id} in its path; write where the job's id goes, like /exports/{job_id}",
                at: pollNode.location)
        }
        let every = p["every"].flatMap { context.positiveDuration($0, "'every' in 'poll' of \(section)") } ?? 1
        let maxEvery = p["max_every"].flatMap { context.positiveDuration($0, "'max_every' in 'poll' of \(section)") } ?? max(every, 30)
        let maxWait = p["max_wait"].flatMap { context.positiveDuration($0, "'max_wait' in 'poll' of \(section)") } ?? 3600
        if maxEvery < every, let at = p["max_every"] {
            context.error("'max_every' in 'poll' of \(section) is shorter than 'every'", at: at.location)
        }
        let cancel = m["cancel"].flatMap {
            decodeJobRequest($0, "'cancel' in \(section)", PipelineSchema.jobCreate, defaultMethod: "DELETE", known: ["job_id"])?.0
        }
        func values(_ key: String, _ defaults: [String]) -> [String] {
            guard let node = m[key] else { return defaults }
            return context.stringList(node, "'\(key)' in \(section)") ?? defaults
        }
        var plan = JobPlan(
            create: create, id: m["id"].flatMap { context.path($0, "'id' in \(section)") } ?? ValuePath([.key("id")]),
            poll: poll, every: every, maxEvery: maxEvery, maxWait: maxWait,
            status: m["status"].flatMap { context.path($0, "'status' in \(section)") } ?? ValuePath([.key("status")]),
            done: values("done", JobPlan.doneByDefault), failed: values("failed", JobPlan.failedByDefault),
            error: m["error"].flatMap { context.path($0, "'error' in \(section)") }, results: results, location: node.location)
        plan.cancel = cancel
        return plan
    }

    /// `{ path, method, body }` of a job's create or poll request.
    private func decodeJobRequest(_ node: YAMLNode, _ what: String, _ schema: SchemaObject, defaultMethod: String, known: Set<String>)
        -> (JobPlan.Request, Mapping)?
    {
        guard let m = context.mapping(node, what, allowed: schema.keyNames),
            let pathNode = context.requireKey("path", in: m, what),
            let path = context.string(pathNode, "'path' in \(what)")
        else { return nil }
        if !path.hasPrefix("/") { context.error("'path' in \(what) must start with '/', as in '/\(path)'", at: pathNode.location) }
        for name in PathTemplate.names(in: path) where !known.contains(name) {
            context.error(
                "'path' in \(what) uses {\(name)}, which is not one of: \(known.sorted().joined(separator: ", "))", at: pathNode.location)
        }
        var method = defaultMethod
        if let methodNode = m["method"], let text = context.string(methodNode, "'method' in \(what)") {
            method = text.uppercased()
            if !PipelineDecoder.methods.contains(method) {
                context.error("unknown HTTP method '\(text)' in \(what)", at: methodNode.location)
            }
        }
        var body: BodyTemplate?
        if m["body"] != nil {
            let decoded = decodeBody(m, what, known: known, paging: nil)
            body = decoded.template
            if decoded.encoding != nil, let at = m["body"] {
                context.error("'body' in \(what) is a template here: json: {…} or form: {…}", at: at.location)
            }
        }
        return (JobPlan.Request(method: method, path: path, body: body), m)
    }

    /// What a job manager cannot also have; an incremental one restarts its export whole.
    func checkJob(of manager: inout ManagerPlan, _ m: Mapping, _ what: String) {
        guard manager.job != nil else { return }
        for key in ["path", "method", "body", "graphql", "paging"] {
            if let node = m[key] {
                context.error(
                    "\(what) has 'job' and '\(key)': a job manager's requests are its 'job' create and poll, and its pages the result files",
                    at: node.location)
            }
        }
        if let incremental = manager.incremental {
            if let at = m["incremental"], let checkpoint = context.mapping(at, "'incremental' of \(what)", allowed: nil)?["checkpoint"] {
                context.error(
                    "'checkpoint' in 'incremental' of \(what): an export job cannot resume midway (its result files are new each time); "
                        + "an interrupted run starts the export again from the last run's cursor",
                    at: checkpoint.location)
            }
            manager.incremental = IncrementalPlan(
                cursor: incremental.cursor, param: incremental.param, format: incremental.format, lookback: incremental.lookback,
                key: incremental.key, start: incremental.start, checkpointPages: Int.max, location: incremental.location)
        }
    }
}
