package import ReformSDK
import ReformYAML

/// `truncate: { title: 40, body: 200 }`: each named key's string cut to at most that many
/// characters.
///
/// A character is what a reader sees as one (a Swift `Character`: an extended grapheme cluster),
/// so a cut never splits an accented letter, a flag or a family emoji, and never leaves invalid
/// UTF-8. A string already short enough, a null and a missing key are left alone; any other value
/// rejects the record (`wrong-type`): convert it to a string first if that is what is meant.
package struct TruncateStep: KeyEditStep {
    package static let name = "truncate"
    package static let summary = "cut the strings of keys to at most N characters"
    package static let argument = SchemaType.named(.int(minimum: 0))

    /// The keys cut, in the order written (stored: the general tier reads them for every record).
    package let editedKeys: [String]
    /// The most characters each key's string keeps (`lengths[i]` for `editedKeys[i]`).
    let lengths: [Int]

    package static func decode(_ argument: StepArgument) -> TruncateStep? {
        guard let node = argument.required(),
            let lengths = argument.context.keyed(
                node, argument.what,
                { entry in
                    argument.context.int(entry.value, "'\(entry.key)' in \(argument.what)", in: 0...Int.max)
                })
        else { return nil }
        guard !lengths.isEmpty else {
            argument.context.error("\(argument.what) names no key; write it as 'truncate: { title: 40 }'", at: node.location)
            return nil
        }
        return TruncateStep(editedKeys: lengths.map(\.key), lengths: lengths.map(\.value))
    }

    package static func sample(_ context: SampleContext, using random: inout some RandomNumberGenerator) -> StepSample? {
        var picked: [String] = []
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            if let key = context.keys.randomElement(using: &random), !picked.contains(key) { picked.append(key) }
        }
        let members = picked.map { "\($0): \([0, 1, 2, 3, 5, 8, 13, 40].randomElement(using: &random) ?? 3)" }
        return StepSample("truncate: { \(members.joined(separator: ", ")) }")
    }

    /// A string stays a string.
    package var columnTypes: ColumnTypeEffect { .keeps }

    package func edit(_ value: Value, at index: Int) throws(RecordError) -> Value {
        switch value {
        case .null:
            return value
        case .string(let text):
            let length = lengths[index]
            // A character is at least one byte: a string of no more bytes is short enough.
            guard text.utf8.count > length, let end = text.index(text.startIndex, offsetBy: length, limitedBy: text.endIndex),
                end < text.endIndex
            else { return value }
            return .string(String(text[..<end]))
        default:
            throw RecordError(
                code: "wrong-type",
                message: "step 'truncate' cuts strings, but '\(editedKeys[index])' is \(value.kindName); "
                    + "convert it to a string first (convert: { \(editedKeys[index]): string })")
        }
    }

    package func keepsText(_ text: UnsafeRawBufferPointer, at index: Int) -> Bool {
        if text.count == 4, text.elementsEqual("null".utf8) { return true }
        // A string's text between its quotes has a byte at least per character.
        return text.first == UInt8(ascii: "\"") && text.count - 2 <= lengths[index]
    }

    package func renamingKeys(_ rename: (String) -> String) -> TruncateStep {
        TruncateStep(editedKeys: editedKeys.map(rename), lengths: lengths)
    }
}
