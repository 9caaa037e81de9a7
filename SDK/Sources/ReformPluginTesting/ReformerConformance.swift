import Dispatch
public import ReformSDK

/// The checks every reformer plugin passes, for its own tests:
///
/// ```swift
/// @Test func conforms() {
///     let report = ReformerConformance.check(ThumbnailURLPlugin(), samples: ["zufang": [["image": "https://x/a.jpg"]]])
///     #expect(report.passed, "\(report)")
/// }
/// ```
///
/// It checks that the plugin's option declaration is usable, that every emitted record has exactly
/// the declared keys, that output is deterministic, that samples are accepted, that records with
/// null, missing and odd-typed fields (``OddValues``) are reformed or rejected with a
/// ``RecordError`` — a crash fails the test run —, for a ``FieldReformer``, that its fast path (fields
/// as JSON text) gives what its value path gives, and, for `Sendable` reformers, that copies used
/// from several threads at once give the same output as one thread.
public enum ReformerConformance {
    /// Checks `plugin` made with `options`, feeding it `samples` (valid records per manager name)
    /// and their odd variants.
    public static func check<Plugin: ReformerPlugin>(
        _ plugin: Plugin, options: Object = Object(), samples: [String: [Value]]
    ) -> ConformanceReport {
        var report = ConformanceReport()
        guard let (reformer, inputs) = prepare(plugin, options: options, samples: samples, &report) else { return report }
        checkSequential(reformer, plugin: plugin, inputs: inputs, &report)
        return report
    }

    /// Checks `plugin` as above and, because its reformer says it is `Sendable`, also from several
    /// threads at once.
    public static func check<Plugin: ReformerPlugin>(
        _ plugin: Plugin, options: Object = Object(), samples: [String: [Value]]
    ) -> ConformanceReport where Plugin.Made: Sendable {
        var report = ConformanceReport()
        guard let (reformer, inputs) = prepare(plugin, options: options, samples: samples, &report) else { return report }
        let expected = checkSequential(reformer, plugin: plugin, inputs: inputs, &report)
        checkThreads(reformer, inputs: inputs, expected: expected, &report)
        return report
    }

    /// One input record: the value, the manager it comes from, whether it is a valid sample, and a label.
    struct Input {
        let value: Value
        let manager: ManagerRef
        let isSample: Bool
        let label: String
    }

    /// Output of one input: the values appended, or the rejection's code.
    enum Outcome: Equatable {
        case values([Value])
        case rejected(String)
    }

    private static func prepare<Plugin: ReformerPlugin>(
        _ plugin: Plugin, options: Object, samples: [String: [Value]], _ report: inout ConformanceReport
    ) -> (Plugin.Made, [Input])? {
        checkDeclaration(plugin, &report)
        let reformer: Plugin.Made
        do {
            reformer = try plugin.make(options: try PluginOptions(checking: options, against: plugin.options))
        } catch {
            report.fail("make(options:) threw for options \(describe(.object(options))): \(error)")
            return nil
        }
        if let declared = plugin.keys, reformer.keys != declared {
            report.fail("the plugin declares keys \(declared.constants) but its reformer says \(reformer.keys?.constants ?? [])")
        }
        if samples.isEmpty { report.fail("no samples given: pass at least one valid record per manager the reformer serves") }
        var inputs: [Input] = []
        let managers = samples.keys.sorted()
        for (index, name) in managers.enumerated() {
            let ref = ManagerRef(index: index, name: name)
            for (n, sample) in (samples[name] ?? []).enumerated() {
                inputs.append(Input(value: sample, manager: ref, isSample: true, label: "sample \(n + 1) of '\(name)'"))
                for variant in OddValues.variants(of: sample) {
                    inputs.append(
                        Input(
                            value: variant, manager: ref, isSample: false,
                            label: "a variant of sample \(n + 1) of '\(name)' \(describe(variant))"))
                }
            }
            for odd in OddValues.records {
                inputs.append(Input(value: odd, manager: ref, isSample: false, label: "the record \(describe(odd)) from '\(name)'"))
            }
        }
        if let first = inputs.first(where: \.isSample) {
            let stranger = ManagerRef(index: managers.count, name: "unknown-manager")
            inputs.append(Input(value: first.value, manager: stranger, isSample: false, label: "a sample from a manager it does not know"))
        }
        return (reformer, inputs)
    }

    private static func checkDeclaration(_ plugin: some ReformerPlugin, _ report: inout ConformanceReport) {
        if plugin.name.isEmpty { report.fail("the plugin's name is empty; use its product name") }
        var seen: Set<String> = []
        for option in plugin.options {
            if !seen.insert(option.name).inserted { report.fail("option '\(option.name)' is declared twice") }
            if option.doc.isEmpty { report.fail("option '\(option.name)' has no doc; `reform plugins` shows it to users") }
            if let value = option.defaultValue, !option.kind.accepts(value) {
                report.fail("option '\(option.name)' is \(option.kind.rawValue) but its default is \(value.kindName)")
            }
        }
    }

    /// Runs every input through two fresh copies; returns the outcomes of the first.
    @discardableResult
    private static func checkSequential<R: Reformer>(
        _ reformer: R, plugin: some ReformerPlugin, inputs: [Input], _ report: inout ConformanceReport
    ) -> [Outcome] {
        let first = run(reformer, inputs)
        let second = run(reformer, inputs)
        report.recordsChecked += inputs.count * 2
        let keys = reformer.keys
        for (input, outcome) in zip(inputs, first) {
            switch outcome {
            case .rejected(let code) where input.isSample:
                report.fail("\(input.label) was rejected (\(code)); samples must be records the reformer accepts")
            case .rejected(let code) where code.isEmpty:
                report.fail("\(input.label) was rejected with an empty code; give every RecordError a stable code")
            case .values(let values):
                if let keys { checkKeys(values, keys, input, &report) }
            default:
                break
            }
        }
        checkFieldsRead(reformer, inputs: inputs, outcomes: first, &report)
        checkFieldPath(reformer, inputs: inputs, outcomes: first, &report)
        if first != second {
            let index = zip(first, second).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
            report.fail("output is not deterministic: \(inputs[index].label) gave different results on two runs")
        }
        return first
    }

    /// A reformer that names the fields it reads must give the same output when given only those.
    private static func checkFieldsRead<R: Reformer>(
        _ reformer: R, inputs: [Input], outcomes: [Outcome], _ report: inout ConformanceReport
    ) {
        for (input, outcome) in zip(inputs, outcomes) where input.isSample {
            guard let fields = reformer.fieldsRead(from: input.manager), case .object(let whole) = input.value else { continue }
            var projected = Object()
            for member in whole.members where fields.contains(member.key) { projected.appendNew(key: member.key, value: member.value) }
            let alone = Input(value: .object(projected), manager: input.manager, isSample: true, label: input.label)
            if run(reformer, [alone]).first != outcome {
                report.fail("\(input.label) gives other output when given only the fields fieldsRead(from:) names (\(fields))")
            }
        }
    }

    private static func checkKeys(_ values: [Value], _ keys: KeySet, _ input: Input, _ report: inout ConformanceReport) {
        for value in values {
            guard case .object(let object) = value else {
                report.fail("\(input.label) gave \(value.kindName), but a reformer that declares keys emits objects")
                continue
            }
            if object.keys != keys.constants {
                report.fail("\(input.label) gave keys \(object.keys), not the declared \(keys.constants) in order")
            }
        }
    }

    private static func checkThreads<R: Reformer & Sendable>(
        _ reformer: R, inputs: [Input], expected: [Outcome], _ report: inout ConformanceReport
    ) {
        let threads = 4
        let results = UnsafeMutableBufferPointer<[Outcome]>.allocate(capacity: threads)
        results.initialize(repeating: [])
        defer { results.deinitialize().deallocate() }
        nonisolated(unsafe) let slots = results
        DispatchQueue.concurrentPerform(iterations: threads) { i in
            slots[i] = run(reformer, inputs)
        }
        report.recordsChecked += inputs.count * threads
        report.checkedThreads = true
        for i in 0..<threads where results[i] != expected {
            report.fail("a copy used on thread \(i + 1) of \(threads) gave other output than one thread alone; it is not safe to share")
        }
    }

    /// `value` as compact JSON, cut to a readable length.
    static func describe(_ value: Value) -> String {
        let text = JSON.compactString(value)
        return text.count <= 160 ? text : String(text.prefix(157)) + "..."
    }

    /// Every input through a fresh copy of `reformer`, then `finish` (its output goes with the last input).
    static func run<R: Reformer>(_ reformer: R, _ inputs: [Input]) -> [Outcome] {
        var copy = reformer
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(inputs.count)
        for (n, input) in inputs.enumerated() {
            var buffer = RecordBuffer(origin: Origin(manager: input.manager, sequence: n + 1))
            do {
                try copy.reform(input.value, from: input.manager, into: &buffer)
                outcomes.append(.values(buffer.records.map(\.value)))
            } catch {
                outcomes.append(.rejected(error.code))
            }
        }
        var buffer = RecordBuffer(origin: Origin(manager: ManagerRef(index: 0, name: ""), sequence: inputs.count + 1))
        do {
            try copy.finish(into: &buffer)
            outcomes.append(.values(buffer.records.map(\.value)))
        } catch {
            outcomes.append(.rejected(error.code))
        }
        return outcomes
    }
}
