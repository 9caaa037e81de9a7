import ReformSDK

/// Landing one manager: every record it lands goes through every output's chain, every bad one
/// to the dead-letter file.
extension Runner {
    /// Lands every record of `ref` into every output; returns how many landed and the input
    /// bytes read.
    func land(_ ref: ManagerRef, sources: LandingSources, into state: inout RunState) throws(RunError) -> (records: Int, bytes: Int) {
        let (landing, meter) = try landing(of: ref, sources: sources, into: &state)
        switch landing {
        case .parallel(let parallel, let files):
            return try parallel.land(files, into: &state)
        case .sequential(let sources):
            let landed = try land(ref, from: sources, meter: meter, into: &state)
            meter?.finish()
            for case let fixtures as FixtureSource in sources {
                state.summary.requests += fixtures.answered
                if let reason = fixtures.stopReason { state.summary.stopped.append((ref.name, reason)) }
            }
            return landed
        }
    }

    /// Lands `sources` one after the other on this thread (the single-core path).
    private func land(_ ref: ManagerRef, from sources: [any RecordSource], meter: ProgressMeter?, into state: inout RunState)
        throws(RunError) -> (records: Int, bytes: Int)
    {
        var landedBefore = 0
        var bytes = 0
        var directBefore = 0
        do {
            for source in sources {
                var limitReached = false
                var general = 0
                var bytesOfSource = 0
                source.observeBytes { read in
                    bytesOfSource = read
                    meter?.read(read)
                }
                meter?.handledElsewhere = { [directBefore] in directBefore + source.handledDirectly }
                defer {
                    bytes += bytesOfSource
                    meter?.finishInput()
                }
                while let landed = try source.next() {
                    if let signal = RunInterruption.signal {
                        throw RunError(.interrupted, "interrupted by signal \(signal); nothing was written")
                    }
                    if let limit = options.limit, landedBefore + general >= limit {
                        limitReached = true
                        break
                    }
                    general += 1
                    meter?.tick()
                    let sequence = landedBefore + general + source.handledDirectly
                    try route(landed, of: ref, sequence: sequence, from: source, into: &state)
                }
                let direct = source.handledDirectly
                if direct > 0 { state.outputs[state.directOutput].countDirect(direct) }
                state.summary.writtenDirectly += direct
                directBefore += direct
                landedBefore += general + direct
                if limitReached { break }
            }
        } catch let error as RunError {
            throw error
        } catch let error as SourceError {
            throw RunError(error)
        } catch let error as OutputError {
            // A write error is the output's, not the manager's: it names the output alone.
            throw RunError(error)
        } catch {
            throw RunError(SourceError(manager: ref.name, message: "\(error)"))
        }
        return (landedBefore, bytes)
    }

    /// Sends one landed record through every output's chain, or a bad one to the dead-letter file.
    private func route(_ landed: Landed, of ref: ManagerRef, sequence: Int, from source: any RecordSource, into state: inout RunState)
        throws
    {
        switch landed {
        case .record(let value, let line, let page):
            let record = Record(value, origin: Origin(manager: ref, sequence: sequence, line: line, page: page))
            for i in state.outputs.indices {
                try state.outputs[i].process(
                    record, inputName: source.inputName, deadLetter: state.deadLetter, original: source.originalRecord)
            }
        case .bad(let line, let error, let text):
            try state.deadLetter.add(
                manager: ref.name, sequence: sequence, input: "\(source.inputName):\(line)", stage: "input",
                error: error, record: nil, text: text)
        }
    }
}
