import OpenAPIKit
import ReformSDK

/// An operation's parameters as a manager declares them: type, required, enum, pattern, bounds
/// and default, checked by Reform before a request is sent.
extension OpenAPIPipelineBuilder {
    /// One parameter of an operation (path-level ones included, the operation's own winning).
    struct DeclaredParameter {
        var name: String
        var location: OpenAPI.Parameter.Context.Location
        var required: Bool
        /// `{ required, type, enum, pattern, min, max, default }` as a manager's `params` entry.
        var spec: Object
        /// The document's example, for a run's params.
        var example: Value?
        /// The numbers paging inference reads.
        var paging: PagingInference.Parameter
    }

    func parameters(of operation: OpenAPI.Operation, pathParameters: OpenAPI.Parameter.Array) -> [DeclaredParameter] {
        var declared: [DeclaredParameter] = []
        for either in pathParameters + operation.parameters {
            guard let parameter = document.components[either] else { continue }
            let made = declare(parameter)
            if let index = declared.firstIndex(where: { $0.name == made.name && $0.location == made.location }) {
                declared[index] = made
            } else {
                declared.append(made)
            }
        }
        return declared
    }

    private func declare(_ parameter: OpenAPI.Parameter) -> DeclaredParameter {
        var spec = Object()
        var paging = PagingInference.Parameter(name: parameter.name)
        let required = parameter.location == .path || parameter.required
        if required { spec.appendNew(key: "required", value: true) }
        var example: Value?
        if case .a(let context) = parameter.schemaOrContent, let schema = document.components[context.schema] {
            let shape = shapes.shape(of: schema)
            let resolved = shape.schema ?? schema
            switch shape.kind {
            case .integer: spec.appendNew(key: "type", value: "int")
            case .number: spec.appendNew(key: "type", value: "double")
            case .boolean: spec.appendNew(key: "type", value: "bool")
            default: break
            }
            if let allowed = resolved.allowedValues, !allowed.isEmpty {
                spec.appendNew(key: "enum", value: .array(allowed.map(\.reformValue)))
            }
            switch resolved.value {
            case .string(_, let string):
                if let pattern = string.pattern { spec.appendNew(key: "pattern", value: .string(pattern)) }
            case .integer(_, let integer):
                paging.minimum = integer.minimum.map { $0.exclusive ? $0.value + 1 : $0.value }
                paging.maximum = integer.maximum.map { $0.exclusive ? $0.value - 1 : $0.value }
                if let minimum = paging.minimum { spec.appendNew(key: "min", value: .int(minimum)) }
                if let maximum = paging.maximum { spec.appendNew(key: "max", value: .int(maximum)) }
            case .number(_, let number):
                if let minimum = number.minimum, !minimum.exclusive { spec.appendNew(key: "min", value: .double(minimum.value)) }
                if let maximum = number.maximum, !maximum.exclusive { spec.appendNew(key: "max", value: .double(maximum.value)) }
            default: break
            }
            if let value = resolved.defaultValue?.reformValue, value != .null {
                spec.appendNew(key: "default", value: value)
                if case .int(let number) = value { paging.defaultValue = number }
            }
            example = (context.example ?? resolved.examples.first)?.reformValue
        }
        if let description = parameter.description.map(firstSentence), !description.isEmpty {
            spec.appendNew(key: "description", value: .string(description))
        }
        return DeclaredParameter(
            name: parameter.name, location: parameter.location, required: required, spec: spec, example: example == .null ? nil : example,
            paging: paging)
    }

    /// The first sentence of a description, on one line, at most 120 characters.
    private func firstSentence(_ text: String) -> String {
        let line = PipelineDraft.oneLine(text).split(separator: " ").joined(separator: " ")
        let sentence = line.split(separator: ". ", maxSplits: 1).first.map(String.init) ?? line
        return sentence.count > 120 ? String(sentence.prefix(117)) + "..." : sentence
    }
}
