/// A reformer that reads the fields it needs as they stand in the input and emits its keys from
/// them, so that a value it only passes on is never built.
///
/// When such a reformer is the whole chain of an NDJSON output fed from NDJSON files, the engine
/// hands it each line's fields (``fieldsRead(from:)``) as JSON text and writes what it appends
/// straight to the output: a field appended unchanged costs a copy of its bytes, as the built-in
/// field mapping does. Everywhere else (live and fixture input, other formats, longer chains, the
/// conformance kit) the engine calls ``reform(_:from:into:)``, which by default gives the same
/// method the fields as values, so one method serves both paths and the output is the same.
///
/// Two rules make that possible:
/// - The reformer must declare its ``keys`` and a ``fieldsRead(from:)`` list for every manager it
///   accepts; ``RecordFields`` holds those fields in that order.
/// - It handles each record on its own: the fast path may use another instance than the one
///   that sees the rest of the stream, and a record it rejects is run again on the general path
///   to reach the dead-letter file. Anything held back for ``finish(into:)`` is not supported.
public protocol FieldReformer: Reformer {
    /// Reforms one record of `manager` given as its ``fieldsRead(from:)`` fields, appending the
    /// declared keys' values to `output` in order (all of them, or none to drop the record).
    mutating func reform(_ fields: RecordFields, from manager: ManagerRef, into output: inout FieldOutput) throws(RecordError)
}

extension FieldReformer {
    /// Reforms a whole record by giving the ``RecordFields`` method its fields as values.
    public mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
        guard let keys else {
            throw RecordError(
                code: "no-keys", message: "a FieldReformer must declare its keys; give the reformer a 'keys' property")
        }
        guard case .object(let object) = record else {
            throw RecordError(
                code: "not-an-object", message: "\(Self.self) reads fields of object records; this one is \(record.kindName)")
        }
        let names = fieldsRead(from: manager) ?? []
        var emitted = FieldOutput(building: keys.constants)
        try reform(RecordFields(values: names.map { object[$0] }), from: manager, into: &emitted)
        if let value = try emitted.builtValue(reformer: String(describing: Self.self)) { output.append(value) }
    }
}
