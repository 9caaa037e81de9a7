import ReformHTTP1
import ReformSDK

/// The OAuth2 access token of one service: fetched before the first request, fetched again once
/// when a request is rejected. Concurrent requests share one fetch.
actor TokenStore {
    private let plan: OAuth2Plan
    private let service: String
    private let baseURL: String
    private let environment: [String: String]
    private let transport: any Transport
    private let events: EventHub
    private var token: String?
    private var fetching: Task<String, any Error>?
    /// Tokens fetched so far.
    private(set) var fetches = 0

    init(plan: OAuth2Plan, service: String, baseURL: String, environment: [String: String], transport: any Transport, events: EventHub) {
        self.plan = plan
        self.service = service
        self.baseURL = baseURL
        self.environment = environment
        self.transport = transport
        self.events = events
    }

    /// The current token, fetching one when there is none.
    func current(for manager: ManagerRef) async throws(ManagerError) -> String {
        if let token { return token }
        return try await fetch(for: manager)
    }

    /// A new token after `rejected` was refused; if another request already replaced it, that one.
    func refresh(after rejected: String, for manager: ManagerRef) async throws(ManagerError) -> String {
        if let token, token != rejected { return token }
        token = nil
        return try await fetch(for: manager)
    }

    private func fetch(for manager: ManagerRef) async throws(ManagerError) -> String {
        let task: Task<String, any Error>
        if let fetching {
            task = fetching
        } else {
            task = Task { try await self.request(for: manager) }
            fetching = task
        }
        do {
            let value = try await task.value
            if fetching == task {
                fetching = nil
                token = value
                fetches += 1
                events.emit(.tokenRefreshed(service: service))
            }
            return value
        } catch {
            if fetching == task { fetching = nil }
            if let error = error as? ManagerError { throw error }
            throw ManagerError(.credentialsRejected, manager: manager.name, request: nil, message: "token request failed: \(error)")
        }
    }

    private func request(for manager: ManagerRef) async throws(ManagerError) -> String {
        func fail(_ message: String, _ response: HTTPResponse? = nil) -> ManagerError {
            ManagerError(
                .credentialsRejected, manager: manager.name, request: "POST token_url",
                message: "service '\(service)': OAuth2 token request: \(message)", status: response?.status,
                headers: response?.headers ?? [], bodyExcerpt: nil)
        }
        var form: [(String, String)] = [("grant_type", plan.grant.rawValue)]
        do {
            if let id = plan.clientID { form.append(("client_id", try id.resolve(in: environment, secret: true))) }
            if let secret = plan.clientSecret { form.append(("client_secret", try secret.resolve(in: environment, secret: true))) }
            if plan.grant == .refreshToken, let refresh = plan.refreshToken {
                form.append(("refresh_token", try refresh.resolve(in: environment, secret: true)))
            }
            if let scope = plan.scope { form.append(("scope", scope)) }
            let url = try plan.tokenURL.resolve(in: environment)
            var request = url.contains("://") ? PageLoader.request(fromURL: url, method: "POST") : HTTPRequest(method: "POST", path: url)
            if request.origin == nil { request.baseURL = baseURL }
            request.setHeader("Content-Type", "application/x-www-form-urlencoded")
            request.setHeader("Accept", "application/json")
            request.body = Array(form.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&").utf8)
            request.timeout = 30
            let response = try await transport.send(request, for: manager)
            guard response.status == 200 else {
                throw fail("status \(response.status); check client_id, client_secret and token_url", response)
            }
            guard case .object(let object)? = response.body, case .string(let token)? = object["access_token"], !token.isEmpty
            else {
                throw fail("the answer has no 'access_token'", response)
            }
            return token
        } catch let error as ManagerError {
            throw error
        } catch let error as TransportError {
            throw fail(error.message)
        } catch let error as InterpolationError {
            throw ManagerError(.configuration, manager: manager.name, request: nil, message: "service '\(service)': \(error.message)")
        } catch {
            throw fail("\(error)")
        }
    }
}
