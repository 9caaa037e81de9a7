import FoundationEssentials
import Logging
import ReformEngine
import ReformSDK

/// Writes log lines to standard error: `TIME LEVEL message key=value …`, or one JSON object a line
/// (`{"time":…,"level":…,"message":…,"key":"value"}`) with `--log-format json`.
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
        let time = Date().ISO8601Format()
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        let keys = fields.keys.sorted()
        if json {
            var object: Object = [
                "time": .string(time), "level": .string(event.level.rawValue), "message": .string(event.message.description),
            ]
            for key in keys { object[key] = .string(fields[key]?.description ?? "") }
            Terminal.write(JSON.compactString(.object(object)) + "\n")
        } else {
            let pairs = keys.map { key in "\(key)=\(fields[key]?.description ?? "")" }
            Terminal.error(([time, event.level.rawValue, event.message.description] + pairs).joined(separator: " "))
        }
    }
}
