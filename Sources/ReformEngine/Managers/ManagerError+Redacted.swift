extension ManagerError {
    /// The error with `redact` applied to every text that came from the request or the response.
    func redacted(_ redact: (String) -> String) -> ManagerError {
        ManagerError(
            kind, manager: manager, request: request.map(redact), message: redact(message), status: status,
            headers: headers.map { QueryItem(name: $0.name, value: redact($0.value)) }, bodyExcerpt: bodyExcerpt.map(redact))
    }
}
