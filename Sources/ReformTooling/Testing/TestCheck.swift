import ReformEngine
import ReformSDK

/// The comparisons of one test case, collecting a message (with a diff) for each mismatch.
struct TestCheck {
    let update: Bool
    private(set) var failures: [String] = []
    private(set) var updated: [String] = []

    init(update: Bool) {
        self.update = update
    }

    mutating func output(_ expected: TestExpectation.Output, actualPath: String, name: String) {
        guard let actual = try? FilePaths.readAll(actualPath) else {
            failures.append("\(name): the run wrote nothing there")
            return
        }
        switch expected {
        case .golden(let golden):
            let old = try? FilePaths.readAll(golden)
            if update {
                guard old != actual else { return }
                do {
                    let file = try OutputFile.atomic(path: golden)
                    file.buffer = actual
                    try file.commit()
                    updated.append(golden)
                } catch {
                    failures.append("\(name): cannot update \(golden): \(error.description)")
                }
                return
            }
            guard let old else {
                failures.append("\(name): golden file \(golden) is missing; write it with 'reform test --update'")
                return
            }
            guard old != actual else { return }
            failures.append(
                "\(name) differs from \(golden) (- expected, + actual; 'reform test --update' re-records it)\n"
                    + indent(LineDiff.render(expected: lines(old), actual: lines(actual))))
        case .records(let records):
            var parser = JSONParser()
            let values: [Value]
            do { values = try actual.withUnsafeBytes { bytes throws(JSONError) in try parser.parseSequence(bytes) } } catch {
                failures.append("\(name): the output is not JSON or NDJSON (\(error)), so it cannot be compared with records")
                return
            }
            let flattened = values.count == 1 && { if case .array = values[0] { true } else { false } }()
            let actualRecords: [Value] = flattened ? (values[0].arrayValue ?? []) : values
            guard actualRecords != records else { return }
            failures.append(
                "\(name) has other records than expected (- expected, + actual)\n"
                    + indent(LineDiff.render(expected: records.map(JSON.compactString), actual: actualRecords.map(JSON.compactString))))
        }
    }

    mutating func requests(_ expected: [(manager: String, requests: [String])], actual: [AnsweredRequest]) {
        for (manager, requests) in expected {
            let sent = actual.filter { $0.manager == manager }.map(\.description)
            guard sent != requests else { continue }
            failures.append(
                "requests of \(manager) differ (- expected, + sent)\n" + indent(LineDiff.render(expected: requests, actual: sent)))
        }
    }

    mutating func stopped(_ expected: [(manager: String, reason: String)], actual: [(manager: String, reason: String)]) {
        for (manager, reason) in expected {
            let got = actual.first { $0.manager == manager }?.reason
            guard got != reason else { continue }
            failures.append("\(manager) stopped paging because '\(got ?? "it never paged")', expected '\(reason)'")
        }
    }

    mutating func deadLetter(_ expect: TestExpectation, path: String) {
        guard expect.deadLetterCount != nil || expect.deadLetterRecords != nil else { return }
        var entries: [Value] = []
        if let bytes = try? FilePaths.readAll(path) {
            var parser = JSONParser()
            entries = (try? bytes.withUnsafeBytes { raw throws(JSONError) in try parser.parseSequence(raw) }) ?? []
        }
        if let count = expect.deadLetterCount, count != entries.count {
            failures.append(
                "expected \(count) dead-letter record\(count == 1 ? "" : "s"), got \(entries.count)"
                    + (entries.isEmpty ? "" : ":\n" + indent(entries.map(JSON.compactString))))
        }
        guard let records = expect.deadLetterRecords else { return }
        for (index, fields) in records.enumerated() {
            guard index < entries.count else {
                failures.append("dead-letter record \(index + 1) is missing (\(entries.count) written)")
                continue
            }
            for (field, part) in fields {
                let value = entries[index].objectValue?[field]?.plainText ?? ""
                if !value.contains(part) {
                    failures.append("dead-letter record \(index + 1): \(field) is '\(value)', expected it to contain '\(part)'")
                }
            }
        }
    }

    mutating func counts(_ counts: (recordsIn: Int?, recordsOut: Int?, rejected: Int?), summary: RunSummary) {
        let out = summary.written.reduce(0) { $0 + $1.count }
        let pairs = [
            ("in", counts.recordsIn, summary.recordsIn), ("out", counts.recordsOut, out), ("rejected", counts.rejected, summary.rejected),
        ]
        for case (let name, let expected?, let actual) in pairs where expected != actual {
            failures.append("expected \(expected) records \(name), got \(actual)")
        }
    }

    private func lines(_ bytes: [UInt8]) -> [String] {
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    private func indent(_ lines: [String]) -> String {
        lines.map { "    " + $0 }.joined(separator: "\n")
    }
}
