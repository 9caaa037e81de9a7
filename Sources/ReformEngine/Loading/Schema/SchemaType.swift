/// What a value in a pipeline (or test) file may be: the declarations the decoder takes its
/// accepted keys from and `reform schema` renders as a JSON Schema, so the two cannot drift.
package indirect enum SchemaType: Sendable {
    /// Text (`${VAR}` references allowed where the decoder resolves them), optionally matching `pattern`.
    case string(pattern: String? = nil)
    /// One of the given words.
    case choice([String])
    /// A whole number within the bounds.
    case int(minimum: Int? = nil, maximum: Int? = nil)
    /// A number.
    case number
    /// `true` or `false`.
    case bool
    /// A duration: seconds as a number, or text like `10s`, `200ms`, `2m`, `1h`.
    case duration
    /// Any value.
    case any
    /// Nothing (`~`, `null` or an empty value).
    case null
    /// Any value but a mapping (a parameter given as its bare default).
    case anyButMapping
    /// A list of values of one type.
    case list(SchemaType)
    /// A mapping with the keys an ``SchemaObject`` declares, and no others.
    case object(SchemaObject)
    /// A mapping of names the file chooses (managers, headers, columns) to values of one type.
    case named(SchemaType)
    /// Any one of the given types.
    case oneOf([SchemaType])

    /// A name, or a list of names.
    package static let stringOrList = SchemaType.oneOf([.string(), .list(.string())])

    /// One of the raw values of `type`, in declaration order.
    package static func choice<E: RawRepresentable & CaseIterable>(of type: E.Type) -> SchemaType where E.RawValue == String {
        .choice(type.allCases.map(\.rawValue))
    }
}

/// One key of a mapping: its name, what it does, and what its value may be.
package struct SchemaKey: Sendable {
    /// The key as written in the file.
    package let name: String
    /// What the key does, shown by editors.
    package let description: String
    /// What its value may be.
    package let type: SchemaType

    /// The key `name` holding a `type`, described by `description`.
    package init(_ name: String, _ type: SchemaType, _ description: String) {
        self.name = name
        self.type = type
        self.description = description
    }
}

/// A mapping with a fixed set of keys: the decoder rejects any other (with a did-you-mean).
package struct SchemaObject: Sendable {
    /// The name under `$defs` when the shape is shared, `nil` to write it in place.
    package let name: String?
    /// What the mapping is, shown by editors.
    package let description: String
    /// The keys it accepts, in the order the documentation lists them.
    package let keys: [SchemaKey]
    /// The keys it must have.
    package let required: [String]
    /// Whether it holds exactly one of its keys (`auth: { bearer: … }`, a step, a value format).
    package let exactlyOne: Bool

    /// A mapping shape written where it is used.
    package init(_ description: String, keys: [SchemaKey], required: [String] = [], exactlyOne: Bool = false) {
        self.init(nil, description, keys: keys, required: required, exactlyOne: exactlyOne)
    }

    /// A mapping shape; `name` makes it a shared definition under `$defs`.
    package init(_ name: String?, _ description: String, keys: [SchemaKey], required: [String] = [], exactlyOne: Bool = false) {
        self.name = name
        self.description = description
        self.keys = keys
        self.required = required
        self.exactlyOne = exactlyOne
    }

    /// The names of the keys it accepts: what the decoder passes as `allowed:`.
    package var keyNames: [String] { keys.map(\.name) }

    /// The key called `name`.
    package func key(_ name: String) -> SchemaKey? { keys.first { $0.name == name } }
}
