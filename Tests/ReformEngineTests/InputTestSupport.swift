import Foundation
import ReformEngine
import ReformSDK

/// A temporary file holding `text`, removed by `remove()`.
struct TemporaryFile {
    let path: String

    init(_ text: String, suffix: String = ".ndjson") throws {
        path = NSTemporaryDirectory() + "reform-input-\(UUID().uuidString)\(suffix)"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    init(bytes: [UInt8], suffix: String = ".ndjson") throws {
        path = NSTemporaryDirectory() + "reform-input-\(UUID().uuidString)\(suffix)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A record as a line that is easy to compare: `line offset index: value-or-error`.
func summary(_ record: InputRecord) -> String {
    let p = record.position
    switch record.payload {
    case .success(let value): return "\(p.line) \(p.offset) \(p.index): \(JSON.compactString(value))"
    case .failure(let error): return "\(p.line) \(p.offset) \(p.index): error \(error)"
    }
}

func readAll(_ reader: inout some RecordReader & ~Copyable) throws -> [String] {
    var result: [String] = []
    while let record = try reader.next() { result.append(summary(record)) }
    return result
}
