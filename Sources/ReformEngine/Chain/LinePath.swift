/// What takes each NDJSON input line of a manager first, as the run's plan decided it once
/// (`ExecutionPlanner`): the fast paths that read the line's bytes, or the general tier's values.
///
/// Every source and worker of the manager builds what this names and nothing else; a line the
/// fast path cannot take still goes down the general path, so the output is the same either way.
enum LinePath: Equatable {
    /// The run's only output is written straight from the line.
    case direct(Direct)
    /// Several outputs: those the compiled path covers whole are written from the line
    /// (``FanOut``); the one it leaves, when only one, starts compiled (``ChainPrefix``) or is a
    /// table bound from the line.
    case fanOut(FanOutShape)
    /// The first `stages` reformers of the only output's chain run compiled on the line; the
    /// record they make lands for the rest (``ChainPrefix``).
    case prefix(stages: Int)
    /// Each line is parsed into a value and lands whole.
    case values

    /// How the only output is written from the line.
    enum Direct: Equatable {
        /// A plain mapping's copy, a compiled chain, or rows rendered from the line (``LineEncoder``).
        case encoder(LineEncoder.Kind)
        /// A plugin's field reformer reading the line (``FieldReformerEncoder``).
        case fieldReformer
        /// A table bound from the line (``TableDirect``).
        case table
    }

    /// What a fan-out does for each output.
    struct FanOutShape: Equatable {
        /// Per output, the encoder that writes it from the line; `nil` for an output it leaves.
        var encoders: [LineEncoder.Kind?]
        /// How many reformers of the one output it leaves run compiled on the line, when some do.
        var restStages: Int?
        /// Whether the one output it leaves is a table bound from the line.
        var boundTable: Bool
    }

    /// Whether anything reads the line's bytes before the general tier.
    var readsBytes: Bool { self != .values }
}
