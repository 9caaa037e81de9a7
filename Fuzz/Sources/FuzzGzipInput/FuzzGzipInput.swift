import Foundation
@_spi(Fuzzing) import ReformEngine

/// libFuzzer entry: the gzip input path of a batch run. The first byte picks how the rest
/// becomes a `.ndjson.gz` input: taken as it is (any bytes), compressed whole (must read exactly
/// like the plain text), compressed then cut short or with bytes changed (must fail the run, never
/// land part of the file silently). Every run that ends must count in = out + rejected.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGzipInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 3 else { return 0 }
    let mode = bytes[0] % 4
    let position = Int(bytes[1]) << 8 | Int(bytes[2])
    let text = Array(bytes[3...])
    let file: [UInt8]
    var mustFail = false
    switch mode {
    case 0:
        file = text
    case 1:
        file = gzip(text)
    case 2:
        let whole = gzip(text)
        let cut = position % whole.count
        file = Array(whole.prefix(cut))
        mustFail = cut > 0  // an empty file is an empty input
    default:
        var whole = gzip(text)
        let at = position % whole.count
        whole[at] ^= 0xA5
        file = whole
        // A flipped bit in the header's flags or time may go unnoticed; the stream and trailer
        // are checked (CRC-32, length).
        mustFail = at >= 10
    }
    let path = FuzzFiles.folder + "/in.ndjson.gz"
    FileManager.default.createFile(atPath: path, contents: Data(file))
    var options = RunOptions()
    options.inputs = [("a", path)]
    options.outputPath = FuzzFiles.folder + "/out.ndjson"
    options.deadLetterPath = FuzzFiles.folder + "/dead.ndjson"
    do {
        let summary = try Runner(pipeline: FuzzFiles.pipeline, options: options).run()
        precondition(!mustFail, "a damaged gzip stream (mode \(mode), at \(position)) was read without an error")
        let out = summary.written.first?.count ?? 0
        precondition(summary.recordsIn == out + summary.rejected, "in \(summary.recordsIn) != out \(out) + rejected \(summary.rejected)")
        if mode == 1 {
            let lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
                .filter { line in !line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }
            precondition(summary.recordsIn == lines.count, "\(summary.recordsIn) records from \(lines.count) lines")
        }
    } catch {
        precondition(mode != 1, "a whole gzip stream failed: \(error)")
    }
    return 0
}

/// `bytes` as one gzip member, compressed by zlib.
func gzip(_ bytes: [UInt8]) -> [UInt8] { ContentDecodingFuzzing.compressed(bytes, windowBits: 31) }

/// The pipeline and a scratch folder, made once.
enum FuzzFiles {
    static let folder: String = {
        let path = NSTemporaryDirectory() + "/reform-fuzz-gzip-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static let pipeline: Pipeline = {
        let yaml = """
            reform: 1
            managers: { a: {} }
            reformers: { list: { keys: { id: kID }, from: { a: { id: id } } } }
            runs: { default: { reform: [list], output: { format: ndjson } } }
            """
        do { return try PipelineLoader(environment: [:]).load(bytes: Array(yaml.utf8), file: "fuzz.yaml", folder: folder) } catch {
            fatalError("the fuzz pipeline does not load: \(error)")
        }
    }()
}
