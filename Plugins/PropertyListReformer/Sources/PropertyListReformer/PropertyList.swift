public import ReformSDK

/// The reformer of seeds/004: each listing API's own field names into the four property-list keys.
///
/// Rules are looked up by manager name once per manager (records arrive manager by manager), so
/// the per-record work is four field reads and one object.
public struct PropertyList: Reformer, Sendable {
    /// The keys, in output order.
    public static let keySet = KeySet([
        .init(name: "id", constant: kPropertyListDataKeyID),
        .init(name: "name", constant: kPropertyListDataKeyName),
        .init(name: "title", constant: kPropertyListDataKeyTitle),
        .init(name: "image", constant: kPropertyListDataKeyImage),
    ])

    /// Each manager's field for each key, in key order.
    static let fieldsByManager: [String: [String]] = [
        "zufang": ["id", "name", "title", "imageUrl"],
        "xinfang": ["xinfang_id", "xinfang_name", "xinfang_title", "xinfang_imageUrl"],
        "ershoufang": ["esf_id", "esf_name", "esf_title", "esf_imageUrl"],
    ]

    /// Whether a missing field rejects the record (otherwise its key holds null).
    public let strict: Bool
    private var cachedManager = -1
    private var fields: [String]?
    /// The output constants in key order, read from ``keySet`` once rather than per record.
    private let constants = PropertyList.keySet.constants

    /// A reformer that rejects records with missing fields when `strict`.
    public init(strict: Bool = true) {
        self.strict = strict
    }

    /// The four constant keys.
    public var keys: KeySet? { PropertyList.keySet }

    /// The four fields of `manager`'s listings, so the engine builds only those from input lines.
    public func fieldsRead(from manager: ManagerRef) -> [String]? {
        PropertyList.fieldsByManager[manager.name]
    }

    /// Maps one listing into the four keys.
    public mutating func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
        if manager.index != cachedManager {
            fields = PropertyList.fieldsByManager[manager.name]
            cachedManager = manager.index
        }
        guard let fields else {
            throw RecordError(
                code: "unknown-manager",
                message: "PropertyListReformer maps zufang, xinfang and ershoufang listings, not '\(manager.name)'")
        }
        guard case .object(let object) = record else {
            throw RecordError(code: "not-an-object", message: "a listing must be an object, not \(record.kindName)")
        }
        var out = Object(minimumCapacity: constants.count)
        for (constant, field) in zip(constants, fields) {
            guard let value = object[field] else {
                if strict {
                    throw RecordError(
                        code: "missing-field",
                        message: "listing from '\(manager.name)' has no '\(field)' (for \(constant)); "
                            + "set option strict: false to emit null instead")
                }
                out.appendNew(key: constant, value: .null)
                continue
            }
            out.appendNew(key: constant, value: value)
        }
        output.append(.object(out))
    }
}
