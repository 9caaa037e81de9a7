/// Hides secret values: everything a service's headers and auth resolve from the environment.
struct Redactor: Sendable {
    /// The resolved secret values, longest first (so a value inside another is not half-hidden).
    let secrets: [String]

    init(variables: [String], environment: [String: String]) {
        secrets = Set(variables).compactMap { environment[$0] }.filter { $0.count >= 3 }.sorted { $0.count > $1.count }
    }

    /// `text` with every secret replaced by `***`.
    func redact(_ text: String) -> String {
        var out = text
        for secret in secrets where out.contains(secret) { out = out.replacing(secret, with: "***") }
        return out
    }
}

extension ServicePlan {
    /// Every environment variable the service's headers, auth and header interceptors read.
    var secretVariables: [String] {
        var names = headers.flatMap(\.value.variables)
        switch auth {
        case .bearer(let token)?: names += token.variables
        case .basic(let user, let password)?: names += user.variables + password.variables
        case .apiKey(_, _, let value)?: names += value.variables
        case .oauth2(let plan)?:
            names += [plan.clientID, plan.clientSecret, plan.refreshToken].compactMap { $0 }.flatMap(\.variables)
        case nil: break
        }
        for case .headers(let list) in interceptors { names += list.flatMap(\.value.variables) }
        return names
    }
}
