public import ReformSDK

/// A record type that renders itself into a row (the seeds' model, `ModelType`).
///
/// Heterogeneous records — events and festivals — share one row shape, and each fills it by its own
/// rules: which of its fields goes into which column, how its row stands out. The renderer never asks
/// what type a record is: ``giveData(to:)`` hands the record to the context as its concrete type,
/// and the context reads it through this protocol (double dispatch, seeds/001 and 003).
///
/// ```swift
/// struct Event: RowModel {
///     var date: String, eventTitle: String
///     var rowStyle: RowStyle { .highlight }
///     func fill(_ row: inout Row) throws(RecordError) {
///         try row.set("date", .string(date))
///         try row.set("label", .string(eventTitle))
///     }
/// }
/// ```
public protocol RowModel {
    /// Fills the row's columns from this record; columns left alone stay empty.
    func fill(_ row: inout Row) throws(RecordError)
    /// How this record's row stands out; ``RowStyle/plain`` unless the type says otherwise.
    var rowStyle: RowStyle { get }
}

/// Where records render themselves (the seeds' view, `ViewType`): a list of rows, a table, a page.
public protocol RowContext {
    /// Takes one record's data (the seeds' `getData`), specialized for the record's own type.
    mutating func getData<Model: RowModel>(_ model: Model) throws(RecordError)
}

extension RowModel {
    /// An ordinary row.
    public var rowStyle: RowStyle { .plain }

    /// Gives this record to `context` (the seeds' `giveData`): called on an `any RowModel`, it opens
    /// the box, so the context's generic `getData` runs specialized for the concrete record type.
    public func giveData<Context: RowContext>(to context: inout Context) throws(RecordError) {
        try context.getData(self)
    }
}
