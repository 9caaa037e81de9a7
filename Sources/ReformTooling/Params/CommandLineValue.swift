public import ReformSDK
import ReformYAML

/// A `--param` value as typed by hand (on the command line, or in `reform studio`'s form), read
/// as a YAML scalar: `20` is a number, `true` a bool, anything else text.
public enum CommandLineValue {
    /// The value `text` stands for.
    public static func parse(_ text: String) -> Value {
        guard let documents = try? YAMLLoader().load(text, file: "--param"), let node = documents.first,
            case .scalar(let scalar) = node.content
        else { return .string(text) }
        return scalar.value
    }
}
