import ReformConcurrency
public import ReformSDK

extension Runner {
    /// The run's output records as an async sequence, instead of its files: a Swift program uses
    /// a pipeline without files (as Benthos' consumer functions take a stream's messages).
    ///
    /// ```swift
    /// for try await record in Runner(pipeline: pipeline, options: options).records() {
    ///     print(record.output, record.value)
    /// }
    /// ```
    ///
    /// Iterating starts the run on a thread of its own. Each record that leaves an output's chain
    /// (in the pipeline's order of outputs, numbered from 0) comes in turn, with where it came
    /// from; the run waits while `buffer` records are not yet taken, so a slow consumer holds no
    /// more than that in memory. No output is written: no file, no standard output, no table
    /// (a row shape's rows are not rendered; its records come as they left the chain). Rejected
    /// records go to the dead-letter file as the options say, and the run keeps no incremental
    /// state (its incremental managers fetch as on a first run, and nothing is saved). The
    /// iteration ends when the run does, or throws its ``RunError``; ending the loop early, or
    /// cancelling its task, stops the run.
    public func records(buffer: Int = 1024) -> RunRecords {
        RunRecords(pipeline: pipeline, options: options, capacity: max(1, buffer))
    }
}

/// One record a run's output chain made, handed to a program by ``Runner/records(buffer:)``.
public struct RunRecord: Sendable {
    /// The output whose chain made it: its position among the run's outputs, from 0.
    public let output: Int
    /// The record.
    public let value: Value
    /// Where it came from: the manager, its position among that manager's records, its page or line.
    public let origin: Origin
}

/// A run's output records as they are made (``Runner/records(buffer:)``). Each iteration is a run
/// of its own; ``summary`` holds the counts of the last that ended.
public final class RunRecords: AsyncSequence, Sendable {
    /// Each record an output chain made.
    public typealias Element = RunRecord

    let pipeline: Pipeline
    let options: RunOptions
    let capacity: Int
    private let ended = Guarded<RunSummary?>(nil)

    init(pipeline: Pipeline, options: RunOptions, capacity: Int) {
        self.pipeline = pipeline
        self.options = options
        self.capacity = capacity
    }

    /// The counts of the last run that ended (its records in: what the managers landed), `nil`
    /// before one has.
    public var summary: RunSummary? { ended.withLock { $0 } }

    /// Starts a run and iterates its records.
    public func makeAsyncIterator() -> Iterator {
        let channel = RecordChannel(capacity: capacity)
        let stop = StopToken(following: options.stop)
        var stopping = options
        stopping.stop = stop
        let options = stopping
        let pipeline = pipeline
        let ended = ended
        OwnThread.start {
            do throws(RunError) {
                let tapped = try RunRecords.tapped(pipeline, options: options) { record in channel.put(record) }
                let summary = try Runner(pipeline: tapped.pipeline, options: tapped.options).run()
                ended.withLock { $0 = summary }
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        }
        return Iterator(channel: channel, stop: stop)
    }

    /// Takes a run's records one by one; letting it go (the loop ended early) stops the run.
    public final class Iterator: AsyncIteratorProtocol {
        private let channel: RecordChannel
        private let stop: StopToken

        init(channel: RecordChannel, stop: StopToken) {
            self.channel = channel
            self.stop = stop
        }

        deinit {
            channel.abandon()
            stop.cancel()
        }

        /// The next record, `nil` when the run has ended; throws the run's ``RunError``, or
        /// `CancellationError` when the task is cancelled (the run is stopped).
        public func next() async throws -> RunRecord? {
            let channel = channel
            let stop = stop
            return try await withTaskCancellationHandler {
                try await channel.take()
            } onCancel: {
                stop.cancel()
                channel.abandon()
            }
        }
    }

    /// `pipeline` with the run `options` name's outputs replaced: each output's chain, then a tap
    /// that hands its records to `each`, written nowhere; and options that keep no state.
    static func tapped(_ pipeline: Pipeline, options: RunOptions, each: @escaping @Sendable (RunRecord) -> Bool) throws(RunError)
        -> (pipeline: Pipeline, options: RunOptions)
    {
        let declared = try RecordLanding.run(of: pipeline, options: options)
        let noOptions = try RecordTap.noOptions()
        let stop = options.stop
        let outputs = declared.outputs.enumerated().map { index, output in
            let tap = RecordTap.plan(named: "records", at: output.location, options: noOptions) { record in
                if !each(RunRecord(output: index, value: record.value, origin: record.origin)) { stop.cancel() }
            }
            return RecordTap.output(output.chain + [tap], at: output.location)
        }
        return RecordTap.tapping(pipeline, run: declared, outputs: outputs, options: options)
    }
}

/// Hands records from a run's thread to an async consumer: the run waits while `capacity` are
/// not taken; the consumer suspends (it never blocks a thread) while none are there.
final class RecordChannel: @unchecked Sendable {
    private let lock = ConditionLock()
    private let capacity: Int
    private var buffer: [RunRecord] = []
    private var head = 0
    private var waiting: CheckedContinuation<RunRecord?, any Error>?
    private var end: (error: RunError?, set: Bool) = (nil, false)
    private var gone = false

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Hands `record` on, waiting for room; `false` when the consumer has gone (stop the run).
    func put(_ record: RunRecord) -> Bool {
        var resume: CheckedContinuation<RunRecord?, any Error>?
        let taken: Bool = lock.withLock {
            while !gone, waiting == nil, buffer.count - head >= capacity { lock.wait() }
            if gone { return false }
            if let waiter = waiting {
                waiting = nil
                resume = waiter
            } else {
                buffer.append(record)
            }
            return true
        }
        resume?.resume(returning: record)
        return taken
    }

    /// The run ended, with `error` when it failed.
    func finish(_ error: RunError?) {
        let waiter: CheckedContinuation<RunRecord?, any Error>? = lock.withLock {
            end = (error, true)
            defer { waiting = nil }
            return waiting
        }
        guard let waiter else { return }
        if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
    }

    /// The consumer has gone: a waiting run is let go, and takes no more records.
    func abandon() {
        let waiter: CheckedContinuation<RunRecord?, any Error>? = lock.withLock {
            gone = true
            lock.broadcast()
            defer { waiting = nil }
            return waiting
        }
        waiter?.resume(throwing: CancellationError())
    }

    /// The next record, or `nil` at the end; throws the run's error, or `CancellationError` after
    /// ``abandon()``.
    func take() async throws -> RunRecord? {
        try await withCheckedThrowingContinuation { continuation in
            let answer: Result<RunRecord?, any Error>? = lock.withLock {
                if let record = nextInBuffer() { return .success(record) }
                if gone { return .failure(CancellationError()) }
                if end.set { return end.error.map { .failure($0) } ?? .success(nil) }
                waiting = continuation
                return nil
            }
            if let answer { continuation.resume(with: answer) }
        }
    }

    /// The oldest record handed on and not taken, under the lock; wakes a waiting run.
    private func nextInBuffer() -> RunRecord? {
        guard head < buffer.count else { return nil }
        let record = buffer[head]
        head += 1
        if head > 1024, head * 2 > buffer.count {
            buffer.removeFirst(head)
            head = 0
        }
        lock.broadcast()
        return record
    }
}
