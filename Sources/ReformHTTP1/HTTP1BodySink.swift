/// Where a response's body goes instead of memory: an export's result file, written to disk as
/// it arrives, so that its size is bounded by the disk and not by the body limit.
///
/// The sink is asked once per response (a redirect or an error answer keeps its body in memory,
/// to be followed or quoted), then given the body a piece at a time and told when it is whole.
/// It may throw from any of them to abandon the exchange (``HTTP1Failure/bodyNotStored(_:)``).
package protocol HTTP1BodySink: AnyObject, Sendable {
    /// The longest wait for each next piece of the body. A body going to the sink is bounded by
    /// this, not by the exchange's deadline (which still bounds the head): a large file may take
    /// longer than any one request should, but never stalls longer than this.
    var idleSeconds: Double { get }
    /// Whether the body of the final response with `status` and `headers` goes to the sink; the
    /// sink starts over (a retry's response replaces what an earlier attempt wrote).
    func accepts(status: Int, headers: [HTTP1Field]) throws(HTTP1Failure) -> Bool
    /// Takes the next piece of the body.
    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTP1Failure)
    /// The body is complete.
    func finish() throws(HTTP1Failure)
}
