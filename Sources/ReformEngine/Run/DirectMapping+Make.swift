@_spi(Engine) import ReformSDK

/// Where a run's outputs make the fast path of one manager's lines: the outputs are the run's
/// (``OutputRuntime``), so making the path is the run's work, on its floor.
extension DirectMapping {
    /// The fast path `path` names for `manager` in a run with these outputs (`nil` for a path
    /// that writes nothing from the line); `limits` are the input records' (a line past them
    /// takes the general path, which rejects it).
    static func make(_ path: LinePath, for manager: ManagerRef, outputs: [OutputRuntime], limits: JSONLimits) -> DirectMapping? {
        switch path {
        case .fanOut(let shape):
            return makeFanOut(shape, for: manager, outputs: outputs, limits: limits)
        case .direct(let direct):
            guard outputs.count == 1, let output = outputs.first else { return nil }
            return make(direct, for: manager, output: output, limits: limits)
        case .prefix, .values:
            return nil
        }
    }

    /// The fast path `direct` into the run's only output.
    fileprivate static func make(_ direct: LinePath.Direct, for manager: ManagerRef, output: OutputRuntime, limits: JSONLimits)
        -> DirectMapping?
    {
        if case .table = direct {
            return tableDirect(for: manager, output: output, limits: limits).map {
                DirectMapping(mapping: nil, fields: nil, file: nil, table: $0)
            }
        }
        guard let file = output.file, let format = output.format else { return nil }
        if case .fieldReformer = direct {
            return FieldReformerEncoder.make(for: manager, outputs: [output.plan], format: format, limits: limits).map {
                DirectMapping(mapping: nil, fields: $0, file: file)
            }
        }
        return LineEncoder.make(for: manager, outputs: [output.plan], format: format, limits: limits).map {
            DirectMapping(mapping: $0, fields: nil, file: file)
        }
    }

    /// The fast path for a run with several outputs, for those whose chains the compiled path
    /// covers, each written to a file of its own (``FanOut``).
    fileprivate static func makeFanOut(_ shape: LinePath.FanOutShape, for manager: ManagerRef, outputs: [OutputRuntime], limits: JSONLimits)
        -> DirectMapping?
    {
        guard let fanOut = FanOut.make(for: manager, outputs: outputs.map(\.plan), formats: outputs.map(\.format), limits: limits)
        else { return nil }
        let files = zip(outputs, fanOut.covers).map { output, covered in covered ? output.file : nil }
        let written = files.compactMap { $0 }
        guard written.count == fanOut.covers.filter({ $0 }).count, Set(written.map(ObjectIdentifier.init)).count == written.count
        else { return nil }
        let left = fanOut.covers.indices.filter { !fanOut.covers[$0] }
        let table =
            shape.boundTable && left.count == 1
            ? tableDirect(for: manager, output: outputs[left[0]], limits: limits).map { (left[0], $0) } : nil
        return DirectMapping(mapping: nil, fields: nil, file: nil, fanOut: fanOut, fanOutFiles: files, fanOutTable: table)
    }

    /// The fast path into `output` when it is a table a plain mapping fills.
    fileprivate static func tableDirect(for manager: ManagerRef, output: OutputRuntime, limits: JSONLimits) -> TableDirect? {
        guard let loader = output.table else { return nil }
        return TableDirect.make(for: manager, output: output.plan, loader: loader, limits: limits)
    }
}
