import ReformEngine
import ReformYAML

/// What Tab offers for `--input MANAGER=PATH`: the managers of the pipeline on the command line as
/// `NAME=`, then, after the `=`, the files there, as `NAME=PATH`.
enum InputCompletion {
    /// Completions of `prefix`, the word at `index` of `words` (the command line as the shell split it).
    static func complete(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        if let equals = prefix.firstIndex(of: "=") {
            let manager = prefix[..<equals]
            return PathCompletion.matching(String(prefix[prefix.index(after: equals)...])).map { "\(manager)=\($0)" }
        }
        let pipeline = words.enumerated().first { position, word in
            position != index && (word.hasSuffix(".yaml") || word.hasSuffix(".yml")) && !word.hasPrefix("-")
        }?.element
        guard let pipeline, let root = try? YAMLLoader().load(contentsOfFile: pipeline).first, case .mapping(let top) = root.content,
            let managers = top.first(where: { name(of: $0.key) == "managers" }), case .mapping(let entries) = managers.value.content
        else { return [] }
        return entries.compactMap { name(of: $0.key).map { "\($0)=" } }.filter { $0.hasPrefix(prefix) }
    }

    /// A scalar key's text.
    private static func name(of node: YAMLNode) -> String? {
        if case .scalar(let scalar) = node.content { return scalar.text }
        return nil
    }
}
