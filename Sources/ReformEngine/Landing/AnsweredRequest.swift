/// One request a manager's replayed fixtures answered during a run, in the order it was sent.
///
/// `reform test` compares these with a test's expected request sequence, so a pipeline's paging can
/// be pinned down without a network.
public struct AnsweredRequest: Sendable, Hashable, CustomStringConvertible {
    /// The manager that sent it.
    public let manager: String
    /// The request as sent.
    public let request: HTTPRequest

    /// A request `manager` sent and its fixtures answered.
    public init(manager: String, request: HTTPRequest) {
        self.manager = manager
        self.request = request
    }

    /// `GET /zufang/list?city=shanghai&page=1` (query in the order sent).
    public var description: String {
        request.query.isEmpty ? "\(request.method) \(request.path)" : "\(request.method) \(request.path)?\(request.queryString)"
    }
}
