package import ReformSDK
import ReformYAML

/// `limit: 10`: the first N records; the rest are dropped (and still read: a limit does not stop
/// a run early).
package struct LimitStep: HoldingStep {
    package static let name = "limit"
    package static let summary = "keep the first N records"
    package static let argument = SchemaType.int(minimum: 0)

    /// How many records pass.
    let count: Int

    package static func decode(_ argument: StepArgument) -> LimitStep? {
        argument.required().flatMap { argument.context.int($0, argument.what, in: 0...Int.max) }.map(LimitStep.init)
    }

    /// None, a few, or more than most generated inputs hold.
    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        StepSample("limit: \(Int.random(in: 0...30, using: &random))")
    }

    /// A limit reads no key.
    package func resolving(_ constant: (String) -> String, keys: KeySet?) -> LimitStep { self }

    package func start(sortMemory: Int) -> any HoldingRun { Run(limit: count) }

    package var heldLinesForm: HeldLinesForm { .limit(count) }

    /// The records passed so far.
    private struct Run: HoldingRun {
        let limit: Int
        var passed = 0

        mutating func apply(_ record: Record, into out: inout [Record]) throws(RecordError) {
            guard passed < limit else { return }
            passed += 1
            out.append(record)
        }
    }
}
