/// A string with `${NAME}` and `${NAME:-default}` environment references, resolved when needed.
///
/// `${file:PATH}` is the content of the file at PATH (relative to the working folder), without
/// the line break and spaces it ends with: a secret a container or Kubernetes mounts as a file
/// (`${file:/run/secrets/api_token}`). It is a secret like a variable: hidden wherever the
/// variables of headers and auth are.
///
/// `${exec:NAME}` is what the pipeline's `secrets:` command answered for NAME (``SecretsCommand``),
/// asked once before a live or recording run sends anything; a secret too.
///
/// `$${` writes a literal `${`. Service headers keep their references unresolved until a request
/// is built, so secrets never sit in the plan and are never printed.
public struct InterpolatedString: Sendable, CustomStringConvertible {
    enum Part: Sendable {
        case literal(String)
        case variable(name: String, fallback: String?)
    }

    let parts: [Part]
    /// The text as written, references included (safe to print: it holds no secret values).
    public let description: String

    /// The names of the environment variables referenced.
    public var variables: [String] {
        parts.compactMap { if case .variable(let name, _) = $0 { name } else { nil } }
    }

    /// Parses the references in `text`; the error's column is 1-based within `text`.
    init(parsing text: String) throws(InterpolationError) {
        description = text
        var parts: [Part] = []
        var literal = ""
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if scalars[i] == "$", i + 2 < scalars.count, scalars[i + 1] == "$", scalars[i + 2] == "{" {
                literal += "${"
                i += 3
                continue
            }
            if scalars[i] == "$", i + 1 < scalars.count, scalars[i + 1] == "{" {
                guard let close = scalars[(i + 2)...].firstIndex(of: "}") else {
                    throw InterpolationError(column: i + 1, message: "'${' is not closed; write '$${' for a literal '${'")
                }
                let inner = String(String.UnicodeScalarView(scalars[(i + 2)..<close]))
                var name = inner
                var fallback: String?
                if let range = inner.firstRange(of: ":-") {
                    name = String(inner[..<range.lowerBound])
                    fallback = String(inner[range.upperBound...])
                }
                let isFile = name.hasPrefix(InterpolatedString.filePrefix) && name.count > InterpolatedString.filePrefix.count
                let isExec =
                    name.hasPrefix(InterpolatedString.execPrefix) && name.count > InterpolatedString.execPrefix.count
                    && name.dropFirst(InterpolatedString.execPrefix.count).unicodeScalars.allSatisfy {
                        $0 == "_" || $0 == "-" || $0 == "." || $0 == "/" || ("A"..."Z").contains($0) || ("a"..."z").contains($0)
                            || ("0"..."9").contains($0)
                    }
                guard
                    isFile || isExec
                        || !name.isEmpty
                            && name.unicodeScalars.allSatisfy({
                                $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
                            })
                else {
                    throw InterpolationError(
                        column: i + 1,
                        message:
                            "'${\(inner)}' is not a variable reference; write ${NAME}, ${NAME:-default}, ${file:PATH} or ${exec:NAME}")
                }
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(.variable(name: name, fallback: fallback))
                i = close + 1
                continue
            }
            literal.unicodeScalars.append(scalars[i])
            i += 1
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    /// How a reference to a file's content starts (`${file:PATH}`).
    static let filePrefix = "file:"
    /// How a reference to the secrets command's answer starts (`${exec:NAME}`); its value sits in
    /// the run's environment under `exec:NAME` once the command has answered.
    static let execPrefix = "exec:"

    /// The value of reference `name`: the variable's in `environment`, or for `file:PATH` the
    /// file's content without the line break and spaces it ends with; `nil` when unset or unreadable.
    static func value(of name: String, in environment: [String: String]) -> String? {
        guard name.hasPrefix(filePrefix) else { return environment[name] }
        return try? fileValue(String(name.dropFirst(filePrefix.count)))
    }

    /// The content of the secret file at `path`, without the line break and spaces it ends with.
    private static func fileValue(_ path: String) throws(FileReadError) -> String {
        // A secret file is a line or a key, never megabytes: a wrong path to a large file is refused.
        let text = String(decoding: try FilePaths.readAll(path, limit: 1 << 20), as: UTF8.self)
        return String(text.reversed().drop { $0 == "\n" || $0 == "\r" || $0 == " " || $0 == "\t" }.reversed())
    }

    /// The text with every reference replaced from `environment`; throws naming the first unset
    /// variable. For a `secret` (headers, credentials, signing keys) the error does not suggest a
    /// default in the pipeline file, where a secret does not belong.
    public func resolve(in environment: [String: String], secret: Bool = false) throws(InterpolationError) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let s): out += s
            case .variable(let name, let fallback) where name.hasPrefix(InterpolatedString.filePrefix):
                do { out += try InterpolatedString.fileValue(String(name.dropFirst(InterpolatedString.filePrefix.count))) } catch {
                    guard let fallback else {
                        throw InterpolationError(
                            column: 1,
                            message: "${\(name)}: \(error.description); give the secret's file, or export the secret and write ${NAME}")
                    }
                    out += fallback
                }
            case .variable(let name, let fallback):
                if let value = environment[name] {
                    out += value
                } else if let fallback {
                    out += fallback
                } else if name.hasPrefix(InterpolatedString.execPrefix) {
                    throw InterpolationError(
                        column: 1,
                        message: "${\(name)} has no value: the pipeline's 'secrets' command answers it, "
                            + "and runs only for a live or recording run; declare 'secrets: { command: … }'")
                } else {
                    throw InterpolationError(
                        column: 1,
                        message: secret
                            ? "environment variable '\(name)' is not set; export it before the run "
                                + "(it holds a secret, which belongs in the environment, not in the pipeline file)"
                            : "environment variable '\(name)' is not set; set it, or give a default with ${\(name):-value}")
                }
            }
        }
        return out
    }
}

/// A bad or unresolvable `${…}` reference.
public struct InterpolationError: Error, Sendable {
    /// The 1-based column within the string.
    public let column: Int
    /// What is wrong and how to fix it.
    public let message: String
}
