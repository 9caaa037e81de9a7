import ReformSDK
import ReformSystem

/// Signs every request with an HMAC of its canonical string (``SigningMessage``), anew on each
/// attempt: a retry or a token refresh gets a fresh timestamp and signature. It signs in
/// `finalize`, after the service's headers and credentials are on the request, so that they can be
/// signed too. The secret is never written anywhere: not in errors, logs or recordings.
public struct SigningInterceptor: Interceptor {
    /// The signature's algorithm, header, encoding and message.
    public let plan: SigningPlan
    private let secret: Secret
    private let clock: @Sendable () -> Int64

    /// Where the secret comes from.
    private enum Secret: Sendable {
        case value(String)
        case template(InterpolatedString, environment: [String: String])
    }

    /// Signs with `secret` as `plan` says; `clock` gives the unix time in seconds for `{timestamp}`
    /// (pin it in tests).
    public init(plan: SigningPlan, secret: String, clock: @escaping @Sendable () -> Int64 = SigningInterceptor.unixTime) {
        self.plan = plan
        self.secret = .value(secret)
        self.clock = clock
    }

    /// Signs with the secret `template` resolves to in `environment` (resolved per request, so the
    /// plan never holds it).
    init(
        plan: SigningPlan, secret template: InterpolatedString, environment: [String: String],
        clock: @escaping @Sendable () -> Int64 = SigningInterceptor.unixTime
    ) {
        self.plan = plan
        self.secret = .template(template, environment: environment)
        self.clock = clock
    }

    /// The current unix time in whole seconds.
    @Sendable public static func unixTime() -> Int64 { Int64(time(nil)) }

    /// The request with the timestamp header (when declared) and the signature header set.
    public func finalize(_ request: HTTPRequest, context: CallContext) async throws(ManagerError) -> HTTPRequest {
        let key = try resolvedSecret(request, context: context)
        var signed = request
        let timestamp = clock()
        if let header = plan.timestampHeader { signed.setHeader(header, String(timestamp)) }
        signed.setHeader(plan.header, plan.signature(of: plan.message.render(signed, timestamp: timestamp), secret: key))
        return signed
    }

    private func resolvedSecret(_ request: HTTPRequest, context: CallContext) throws(ManagerError) -> String {
        let key: String
        switch secret {
        case .value(let value): key = value
        case .template(let template, let environment):
            do { key = try template.resolve(in: environment, secret: true) } catch {
                throw ManagerError(
                    .configuration, manager: context.manager.name, request: request.matchKey,
                    message: "the secret of the sign interceptor of service '\(context.service)': \(error.message)")
            }
        }
        guard !key.isEmpty else {
            let source =
                if case .template(let template, _) = secret, !template.variables.isEmpty {
                    " (\(template.variables.map { "${\($0)}" }.joined(separator: ", ")) is empty)"
                } else { "" }
            throw ManagerError(
                .configuration, manager: context.manager.name, request: request.matchKey,
                message: "the secret of the sign interceptor of service '\(context.service)' is empty\(source); "
                    + "set it to the signing key the service gave you")
        }
        return key
    }
}
