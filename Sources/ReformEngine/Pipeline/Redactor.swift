/// Hides secret values: everything a service's headers, auth and interceptors resolve from the
/// environment (signing secrets included), in every form a request carries it — as written,
/// percent-encoded (a query, a path, a form body) and, for Basic auth, the Base64 of
/// `user:password`.
struct Redactor: Sendable {
    /// Every form of every secret, longest first (so a value inside another is not half-hidden).
    let secrets: [String]

    /// Secrets of `service` resolved in `environment`: its headers, auth, and header and sign
    /// interceptors.
    init(service: ServicePlan, environment: [String: String]) {
        var values = Set(service.secretVariables).compactMap { InterpolatedString.value(of: $0, in: environment) }
        values += service.interceptors.secretTemplates.compactMap { try? $0.resolve(in: environment) }
        if case .basic(let user, let password)? = service.auth,
            let pair = try? user.resolve(in: environment) + ":" + password.resolve(in: environment)
        {
            values.append(Base64.encode(pair.utf8))
        }
        self.init(values: values)
    }

    /// Hides the secrets of `interceptors` (declared on a manager); a signing secret is hidden
    /// whole once resolved (one written into the pipeline has no variable to look up).
    init(interceptors: [InterceptorPlan], environment: [String: String]) {
        let values =
            Set(interceptors.secretVariables).compactMap { InterpolatedString.value(of: $0, in: environment) }
            + interceptors.secretTemplates.compactMap { try? $0.resolve(in: environment) }
        self.init(values: values)
    }

    /// Hides `values` in every form a server may echo them back (``echoedForms(of:)``); values
    /// shorter than 3 characters are kept (hiding every `a` would hide nothing and garble
    /// everything).
    init(values: [String]) {
        let forms = values.filter { $0.count >= 3 }.flatMap(Redactor.echoedForms(of:))
        secrets = Set(forms).sorted { $0.count > $1.count }
    }

    /// Whether `text` holds one of the secrets.
    func reveals(_ text: String) -> Bool {
        secrets.contains { text.contains($0) }
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
