import ReformConcurrency

/// Cross-layer signals (seeds/004: notifications only for what crosses layers). Landings and
/// failures go to each manager's consumer; these go to whoever watches the service.
public enum ServiceEvent: Sendable, Equatable {
    /// The service could not be reached (refused, no such host).
    case unreachable(service: String, manager: String, message: String)
    /// The service rejected the credentials (a 401/403, before or after a refresh).
    case credentialsRejected(service: String, manager: String, status: Int)
    /// A new access token was fetched.
    case tokenRefreshed(service: String)
    /// The service answered 429; `retryAfter` is its `Retry-After` in seconds, when given.
    case rateLimited(service: String, manager: String, retryAfter: Double?)
}

/// Fans service events out to every subscriber's `AsyncStream`.
public final class EventHub: Sendable {
    private let subscribers = Guarded<[Int: AsyncStream<ServiceEvent>.Continuation]>([:])
    private let nextID = Guarded(0)
    private let observer: (@Sendable (ServiceEvent) -> Void)?

    /// A hub with no subscribers; `observer`, when given, sees every event as it is emitted.
    public init(observer: (@Sendable (ServiceEvent) -> Void)? = nil) {
        self.observer = observer
    }

    /// A new stream of every event emitted from now on; it ends when the subscriber stops iterating.
    public func events() -> AsyncStream<ServiceEvent> {
        let (stream, continuation) = AsyncStream<ServiceEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = nextID.withLock { id in
            id += 1
            return id
        }
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `event` to every subscriber.
    public func emit(_ event: ServiceEvent) {
        observer?(event)
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }
}
