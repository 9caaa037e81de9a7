import ReformSDK
import ReformYAML

/// Opens batch input files (`--input MANAGER=PATH`) by their extension.
///
/// `.ndjson`/`.jsonl` (and `-`, standard input) stream one record per line in constant memory;
/// `.json` holds an array of records or one record; `.yaml`/`.yml` hold a list of records, one
/// record, or several documents.
enum InputFiles {
    static func open(
        _ path: String, manager: String, projection: JSONProjection?, direct: DirectMapping? = nil
    ) throws(SourceError) -> any RecordSource {
        if path.hasSuffix(".yaml") || path.hasSuffix(".yml") {
            do { return try YAMLFileSource(path: path, manager: manager, bytes: try FilePaths.readAll(path)) } catch let error as FileReadError {
                throw SourceError(manager: manager, message: error.description)
            } catch let error as SourceError {
                throw error
            } catch {
                throw SourceError(manager: manager, message: "\(error)")
            }
        }
        if path.hasSuffix(".json") { return try JSONArraySource(path: path, manager: manager) }
        return try NDJSONSource(path: path, manager: manager, projection: projection, direct: direct)
    }

    /// One whole JSON or YAML document (fixture exchanges).
    static func document(at path: String, manager: String) throws(SourceError) -> Value {
        let bytes: [UInt8]
        do { bytes = try FilePaths.readAll(path) } catch {
            throw SourceError(manager: manager, message: error.description)
        }
        if path.hasSuffix(".json") {
            do { return try JSON.parse(bytes) } catch {
                throw SourceError(manager: manager, message: "\(path):\(error.line):\(error.column): error: \(error.message)")
            }
        }
        do {
            let documents = try YAMLLoader().load(bytes, file: path)
            guard let first = documents.first else { return .null }
            return try first.toValue(file: path)
        } catch {
            throw SourceError(manager: manager, message: error.rendered(source: String(decoding: bytes, as: UTF8.self)))
        }
    }
}
