import ReformSDK

extension CellText {
    /// The record as an object, or an error naming the format that needs one.
    static func object(
        _ record: Value,
        number: Int,
        format: OutputFormat,
        output: OutputFile
    ) throws(OutputError) -> Object {
        if case .object(let object) = record { return object }
        throw OutputError(
            path: output.displayPath,
            message: "record \(number) is \(article(record.kindName)) \(record.kindName), but \(format.rawValue) "
                + "output needs objects whose keys name the columns; write it with --format ndjson or json"
        )
    }

    private static func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }
}
