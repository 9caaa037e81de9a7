import Foundation
import ReformEngine
import ReformSDK

/// libFuzzer entry: the dead-letter writer. The bytes are an NDJSON input whose records all lack
/// the one field the mapping needs, so every line is rejected: bad JSON as text, good JSON as the
/// record. The dead-letter file must hold one valid JSON line per rejected record, the count the
/// run reports, each keeping the record exactly as parsed or the text as read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeadLetter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let path = FuzzFiles.folder + "/in.ndjson"
    FileManager.default.createFile(atPath: path, contents: Data(bytes))
    let dead = FuzzFiles.folder + "/dead.ndjson"
    unlink(dead)
    var options = RunOptions()
    options.inputs = [("a", path)]
    options.outputPath = "/dev/null"
    options.deadLetterPath = dead
    options.recordLimits.maximumDepth = 4_096
    let summary: RunSummary
    do { summary = try Runner(pipeline: FuzzFiles.pipeline, options: options).run() } catch {
        preconditionFailure("a batch run over a readable file failed: \(error)")
    }
    let letters = (FileManager.default.contents(atPath: dead).map { Array($0) } ?? [])
    precondition(letters.isEmpty || letters.last == UInt8(ascii: "\n"), "the dead-letter file ends in a partial line")
    let lines = letters.split(separator: UInt8(ascii: "\n"))
    precondition(lines.count == summary.rejected, "\(lines.count) dead-letter lines for \(summary.rejected) rejected")
    let inputLines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    var limits = JSONLimits()
    limits.maximumDepth = 4_096
    for line in lines {
        guard case .object(let entry) = try? JSON.parse(Array(line), limits: limits) else {
            preconditionFailure("a dead-letter line is not a JSON object: \(String(decoding: line, as: UTF8.self))")
        }
        precondition(entry["record"] != nil || entry["text"] != nil || entry["code"] == .string("too-large"), "an entry without its record")
        // The record kept is the input line's value, exactly: written and read back.
        guard let record = entry["record"], case .string(let input)? = entry["input"],
            let colon = input.lastIndex(of: ":"), let number = Int(input[input.index(after: colon)...]),
            number >= 1, number <= inputLines.count,
            let original = try? JSON.parse(Array(inputLines[number - 1]), limits: limits)
        else { continue }
        precondition(record == original, "line \(number) was dead-lettered as \(record), not as read")
    }
    return 0
}

/// The pipeline and a scratch folder, made once.
enum FuzzFiles {
    static let folder: String = {
        let path = NSTemporaryDirectory() + "/reform-fuzz-dead-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Every record needs `needed`, which no fuzz input is likely to carry; those that do pass.
    static let pipeline: Pipeline = {
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers: { list: { keys: { id: kID }, from: { a: { id: needed_field_q7 } } } }
            runs: { default: { reform: [list], output: { format: ndjson } } }
            """
        do { return try PipelineLoader(environment: [:]).load(bytes: Array(yaml.utf8), file: "fuzz.yaml", folder: folder) } catch {
            fatalError("the fuzz pipeline does not load: \(error)")
        }
    }()
}
