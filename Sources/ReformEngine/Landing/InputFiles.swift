@_spi(Engine) import ReformSDK
import ReformSystem
import ReformYAML

/// Opens batch input files (`--input MANAGER=PATH`) by their extension.
///
/// `.ndjson`/`.jsonl` (and `-`, standard input) stream one record per line in constant memory;
/// `.json` holds an array of records or one record; `.yaml`/`.yml` hold a list of records, one
/// record, or several documents. `.ndjson.gz`, `.jsonl.gz` and `.json.gz` are decompressed as they
/// are read. A folder stands for the input files in it, in name order. `sqlite:PATH#TABLE` reads
/// a table's rows (``TableAddress``).
enum InputFiles {
    /// Extensions of the files a folder input reads; other files in it are left alone.
    static let extensions = [".ndjson", ".jsonl", ".json", ".yaml", ".yml", ".ndjson.gz", ".jsonl.gz", ".json.gz"]

    /// The files `path` names: itself, or the input files of a folder (sorted by name, hidden
    /// files left out); throws for a folder without any.
    static func expand(_ path: String, manager: String) throws(SourceError) -> [String] {
        if !FilePaths.isFile(path), let range = InputRange.parse(path) {
            guard FilePaths.isFile(range.path) else {
                throw SourceError(manager: manager, message: "\(range.path) (of the byte range \(path)) is not a file")
            }
            guard isNDJSON(range.path), !range.path.hasSuffix(".gz") else {
                throw SourceError(
                    manager: manager, message: "a byte range (\(path)) reads an uncompressed .ndjson or .jsonl file, line by line")
            }
            return [path]
        }
        if !FilePaths.isFile(path), let problem = InputRange.problem(in: path) {
            throw SourceError(manager: manager, message: problem)
        }
        guard path != "-", TableAddress(path) == nil, FilePaths.isDirectory(path) else { return [path] }
        let names = (FilePaths.contents(of: path) ?? []).filter { name in
            !name.hasPrefix(".") && extensions.contains { name.hasSuffix($0) }
        }
        guard !names.isEmpty else {
            throw SourceError(
                manager: manager, message: "the folder \(path) holds no input files (\(extensions.joined(separator: ", ")))")
        }
        let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
        return names.map { folder + "/" + $0 }
    }

    /// The size of the file at `path` in bytes (compressed size for `.gz`), `nil` for standard input
    /// or anything that is not a regular file.
    static func size(of path: String) -> Int? {
        if !FilePaths.isFile(path), let range = InputRange.parse(path) { return range.end - range.start }
        var info = stat()
        guard path != "-", stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Whether `path` is read as NDJSON (everything but JSON and YAML files).
    static func isNDJSON(_ path: String) -> Bool {
        TableAddress(path) == nil && ![".json", ".json.gz", ".yaml", ".yml"].contains { path.hasSuffix($0) }
    }

    /// The file `path` reads: itself, or the database of a table address.
    static func file(of path: String) -> String {
        TableAddress(path)?.database ?? path
    }

    static func open(
        _ path: String, manager: String, projection: JSONProjection?, fastPath: (any LineFastPath)? = nil,
        limits: JSONLimits = NDJSONReader.defaultLimits, stop: StopToken = .process
    ) throws(SourceError) -> any RecordSource {
        if let address = TableAddress(path) {
            return try TableSource(address, manager: manager)
        }
        if path.hasSuffix(".yaml") || path.hasSuffix(".yml") {
            do { return try YAMLFileSource(path: path, manager: manager, bytes: try FilePaths.readAll(path)) } catch let error
                as FileReadError
            {
                throw SourceError(manager: manager, message: error.description)
            } catch let error as SourceError {
                throw error
            } catch {
                throw SourceError(manager: manager, message: "\(error)")
            }
        }
        if path.hasSuffix(".json") || path.hasSuffix(".json.gz") {
            return try JSONArraySource(path: path, manager: manager, limits: limits, stop: stop)
        }
        return try NDJSONSource(
            path: path, manager: manager, projection: projection, fastPath: fastPath, limits: limits, stop: stop)
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
