/// The constant keys a reformer emits, declared once, in order (seeds/004's `kPropertyListDataKeyID`).
///
/// Each key has a short name used inside the pipeline (`id`) and the constant that consumers see in
/// the output (`kPropertyListDataKeyID`).
public struct KeySet: Sendable, Hashable {
    /// One declared key.
    public struct Key: Sendable, Hashable {
        /// The short name the pipeline uses (`id`).
        public let name: String
        /// The constant consumers see in output records (`kPropertyListDataKeyID`).
        public let constant: String

        /// A key called `name` in the pipeline and `constant` in the output.
        public init(name: String, constant: String) {
            self.name = name
            self.constant = constant
        }
    }

    /// The keys in declared order.
    public let keys: [Key]

    /// A key set with the keys in the given order.
    public init(_ keys: [Key]) {
        self.keys = keys
    }

    /// The output constants in declared order.
    public var constants: [String] { keys.map(\.constant) }

    /// The key whose short name or constant is `name`.
    public func key(named name: String) -> Key? {
        keys.first { $0.name == name || $0.constant == name }
    }
}
