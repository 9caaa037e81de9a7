/// Where a parallel landing's batches come from: an input cut into batches of whole lines.
protocol LineBatches: ~Copyable {
    /// The next batch, or `nil` at the end of the input.
    mutating func next() throws(InputError) -> LineBatcher.Chunk?
    /// Takes back a batch's array once its lines are no longer needed.
    mutating func recycle(_ bytes: consuming [UInt8])
    /// Bytes of the input read (or handed out to read) so far.
    var bytesRead: Int { get }
}
