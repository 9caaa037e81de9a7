/// A JSON object: string keys to values, kept in insertion order.
///
/// Setting a key that is already present replaces its value in place (as `jq` does with duplicate
/// keys). Look-ups scan the members, which is the fastest way for the small objects records are;
/// past ``indexThreshold`` members an index is kept so that large objects stay linear to build.
@frozen
public struct Object: Sendable {
    /// One key and its value.
    @frozen
    public struct Member: Sendable, Equatable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: Value

        /// A member with the given key and value.
        @inlinable
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// Member count past which look-ups go through a hash index instead of a scan.
    public static let indexThreshold = 24

    /// The members in insertion order.
    @inlinable
    public var members: [Member] { storage }
    @usableFromInline
    internal var storage: [Member]
    @usableFromInline
    internal var index: [String: Int]?

    /// An empty object.
    @inlinable
    public init() {
        storage = []
        index = nil
    }

    /// An empty object with room for `minimumCapacity` members.
    @inlinable
    public init(minimumCapacity: Int) {
        storage = []
        storage.reserveCapacity(minimumCapacity)
        index = nil
    }

    /// The number of members.
    @inlinable
    public var count: Int { storage.count }

    /// Whether the object has no members.
    @inlinable
    public var isEmpty: Bool { storage.isEmpty }

    /// The keys in insertion order.
    @inlinable
    public var keys: [String] { storage.map(\.key) }

    /// The position of `key` among the members, if present.
    @inlinable
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        for i in storage.indices where storage[i].key == key { return i }
        return nil
    }

    /// The value for `key`; setting `nil` removes the member, setting a value replaces or appends.
    @inlinable
    public subscript(key: String) -> Value? {
        get {
            guard let i = position(of: key) else { return nil }
            return storage[i].value
        }
        set {
            if let newValue {
                if let i = position(of: key) {
                    storage[i].value = newValue
                } else {
                    appendNew(key: key, value: newValue)
                }
            } else if let i = position(of: key) {
                storage.remove(at: i)
                rebuildIndex()
            }
        }
    }

    /// Appends a member whose key the caller knows is not present yet (the fast path for builders).
    ///
    /// Appending a key that is already present breaks the object's invariant; use the subscript
    /// setter when the key may repeat.
    @inlinable
    public mutating func appendNew(key: String, value: Value) {
        storage.append(Member(key: key, value: value))
        if index != nil {
            index?[key] = storage.count - 1
        } else if storage.count > Object.indexThreshold {
            rebuildIndex()
        }
    }

    /// Removes every member, keeping the storage for reuse.
    @inlinable
    public mutating func removeAll(keepingCapacity: Bool = true) {
        storage.removeAll(keepingCapacity: keepingCapacity)
        index = nil
    }

    @usableFromInline
    internal mutating func rebuildIndex() {
        guard storage.count > Object.indexThreshold else {
            index = nil
            return
        }
        var built = [String: Int](minimumCapacity: storage.count)
        for (i, member) in storage.enumerated() { built[member.key] = i }
        index = built
    }
}

extension Object: Equatable {
    /// Objects are equal when they have the same keys with equal values, in any order.
    public static func == (lhs: Object, rhs: Object) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for member in lhs.members {
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }
}

extension Object: Hashable {
    /// Hashes members independently of their order, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            member.value.hash(into: &memberHasher)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension Object: ExpressibleByDictionaryLiteral {
    /// A literal object, such as plugin options in tests; keys keep the order written.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(minimumCapacity: elements.count)
        for (key, value) in elements { self[key] = value }
    }
}
