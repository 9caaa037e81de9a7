import ReformSystem

/// Variables from a dotenv file (`--env-file`), for the `${NAME}` references of a pipeline: the
/// secrets a container or a developer keeps out of the shell's environment.
///
/// The syntax is the common one: `NAME=value` a line, an optional `export ` before it, `#`
/// comments and blank lines ignored; a value in single quotes is taken as it is, one in double
/// quotes reads `\n`, `\t`, `\"` and `\\`, and an unquoted value ends before ` #` and loses the
/// spaces around it. Names are letters, digits and `_`. Anything else is an error naming the
/// file and line, never a line skipped.
public enum EnvironmentFile {
    /// The variables of the dotenv text `text`, in order; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(EnvironmentFileError) -> [(name: String, value: String)] {
        var variables: [(name: String, value: String)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(raw.hasSuffix("\r") ? raw.dropLast() : raw)
            line = line.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = line.dropFirst("export ".count).drop { $0 == " " } }
            func failure(_ message: String) -> EnvironmentFileError {
                EnvironmentFileError(message: "\(file):\(index + 1): \(message)")
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw failure("expected NAME=value, as in API_TOKEN=abc123")
            }
            let name = String(line[..<equals]).trimmingSpaces
            let isNameCharacter = { (c: Unicode.Scalar) in
                c == "_" || ("A"..."Z").contains(c) || ("a"..."z").contains(c) || ("0"..."9").contains(c)
            }
            guard let first = name.unicodeScalars.first, !("0"..."9").contains(first), name.unicodeScalars.allSatisfy(isNameCharacter)
            else {
                throw failure("'\(name)' is not a variable name (letters, digits and _, not starting with a digit)")
            }
            let rest = line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            variables.append((name: String(name), value: try value(of: rest, failure: failure)))
        }
        return variables
    }

    /// The variables of the dotenv file at `path`.
    public static func load(path: String) throws(EnvironmentFileError) -> [(name: String, value: String)] {
        let bytes: [UInt8]
        do { bytes = try FilePaths.readAll(path) } catch {
            throw EnvironmentFileError(message: "--env-file \(path): \(error.description)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw EnvironmentFileError(message: "--env-file \(path): not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// `environment` with the variables of `files` added (a later file's over an earlier one's);
    /// a variable `environment` already has keeps its value unless `overriding`.
    public static func merging(_ files: [String], into environment: [String: String], overriding: Bool = false) throws(EnvironmentFileError)
        -> [String: String]
    {
        var fromFiles: [String: String] = [:]
        for file in files {
            for (name, value) in try load(path: file) { fromFiles[name] = value }
        }
        var merged = environment
        for (name, value) in fromFiles where overriding || merged[name] == nil { merged[name] = value }
        return merged
    }

    /// A value as written after `=`.
    private static func value(of text: Substring, failure: (String) -> EnvironmentFileError) throws(EnvironmentFileError) -> String {
        guard let quote = text.first, quote == "'" || quote == "\"" else {
            // Unquoted: up to a comment, without the spaces around it.
            let end = text.firstRange(of: " #")?.lowerBound ?? text.firstRange(of: "\t#")?.lowerBound ?? text.endIndex
            return String(text[..<end]).trimmingSpaces
        }
        var out = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if character == quote {
                let after = text[text.index(after: index)...].drop { $0 == " " || $0 == "\t" }
                guard after.isEmpty || after.hasPrefix("#") else { throw failure("text after the closing \(quote)") }
                return out
            }
            if quote == "\"", character == "\\", text.index(after: index) < text.endIndex {
                index = text.index(after: index)
                switch text[index] {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                default: out.append(text[index])
                }
            } else {
                out.append(character)
            }
            index = text.index(after: index)
        }
        throw failure("the value's \(quote) is not closed (a value on several lines is not read)")
    }
}

/// A dotenv file that cannot be read or parsed.
public struct EnvironmentFileError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, with the file and line, and how to fix it.
    public let message: String
    /// The message.
    public var description: String { message }
}

extension StringProtocol {
    /// Without spaces and tabs at either end.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
