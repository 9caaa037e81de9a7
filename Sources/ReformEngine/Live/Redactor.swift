/// Hides secret values: everything a service's headers and auth resolve from the environment, and
/// every signing secret.
struct Redactor: Sendable {
    /// The resolved secret values, longest first (so a value inside another is not half-hidden).
    let secrets: [String]

    /// Hides the values of `variables` and what each of `templates` resolves to as a whole (a
    /// signing secret written into the pipeline has no variable to look up).
    init(variables: [String], templates: [InterpolatedString] = [], environment: [String: String]) {
        let whole = templates.compactMap { try? $0.resolve(in: environment) }
        secrets = Set(variables.compactMap { environment[$0] } + whole).filter { $0.count >= 3 }.sorted { $0.count > $1.count }
    }

    /// Hides the secrets of `interceptors` (declared on a manager).
    init(interceptors: [InterceptorPlan], environment: [String: String]) {
        self.init(variables: interceptors.secretVariables, templates: interceptors.secretTemplates, environment: environment)
    }

    /// `text` with every secret replaced by `***`.
    func redact(_ text: String) -> String {
        var out = text
        for secret in secrets where out.contains(secret) { out = out.replacing(secret, with: "***") }
        return out
    }
}

extension ServicePlan {
    /// Every environment variable the service's headers, auth and interceptors read.
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
        return names + interceptors.secretVariables
    }
}

extension [InterceptorPlan] {
    /// The environment variables that header and sign interceptors read.
    var secretVariables: [String] {
        flatMap { plan -> [String] in
            switch plan {
            case .headers(let list): list.flatMap(\.value.variables)
            case .sign(_, let secret): secret.variables
            case .log, .rateLimit: []
            }
        }
    }

    /// The signing secrets, hidden whole once resolved.
    var secretTemplates: [InterpolatedString] {
        compactMap { if case .sign(_, let secret) = $0 { secret } else { nil } }
    }
}

extension ManagerError {
    /// The error with `redact` applied to every text that came from the request or the response.
    func redacted(_ redact: (String) -> String) -> ManagerError {
        ManagerError(
            kind, manager: manager, request: request.map(redact), message: redact(message), status: status,
            headers: headers.map { QueryItem(name: $0.name, value: redact($0.value)) }, bodyExcerpt: bodyExcerpt.map(redact))
    }
}
