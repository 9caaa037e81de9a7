import FoundationEssentials
import Logging
import ReformEngine
import ReformSDK

/// Writes log lines to standard error: `TIME LEVEL message key=value …`, or one JSON object a line
/// (`{"time":…,"level":…,"message":…,"key":value}`) with `--log-format json`. Times are RFC 3339
/// in UTC with milliseconds; in JSON, numbers and booleans stay numbers and booleans.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    let json: Bool
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        if json {
            Terminal.write(
                Self.jsonLine(level: event.level.rawValue, message: event.message.description, fields: fields.mapValues(Self.value)))
        } else {
            let pairs = fields.keys.sorted().map { key in "\(key)=\(fields[key]?.description ?? "")" }
            Terminal.error(([Self.now(), event.level.rawValue, event.message.description] + pairs).joined(separator: " "))
        }
    }

    /// The time now as the lines carry it: RFC 3339, UTC, milliseconds (`2026-11-28T04:56:04.123Z`).
    static func now() -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
    }

    /// One JSON log line (with its line feed): `time`, `level`, `message`, then `fields` in key order.
    static func jsonLine(level: String, message: String, fields: [String: Value] = [:]) -> String {
        var object = Object()
        object.appendNew(key: "time", value: .string(now()))
        object.appendNew(key: "level", value: .string(level))
        object.appendNew(key: "message", value: .string(message))
        for key in fields.keys.sorted() where object[key] == nil { object.appendNew(key: key, value: fields[key] ?? .null) }
        return JSON.compactString(.object(object)) + "\n"
    }

    /// A metadata value as JSON: numbers and booleans as themselves, the rest as text.
    static func value(_ metadata: Logger.Metadata.Value) -> Value {
        switch metadata {
        case .string(let text): return .string(text)
        case .stringConvertible(let convertible):
            switch convertible {
            case let int as Int: return .int(int)
            case let double as Double: return .double(double)
            case let bool as Bool: return .bool(bool)
            default: return .string(convertible.description)
            }
        case .array(let values): return .array(values.map(value))
        case .dictionary(let pairs):
            var object = Object()
            for key in pairs.keys.sorted() { object.appendNew(key: key, value: pairs[key].map(value) ?? .null) }
            return .object(object)
        }
    }
}
