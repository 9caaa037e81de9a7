public import ReformSDK

/// The reformer of seeds/004: each listing API's own field names into the four property-list keys.
///
/// A ``FieldReformer``: it reads each listing's four fields as they stand and passes them on, so on
/// the engine's fast path (NDJSON in and out) no value is built. Rules are looked up by manager
/// name once per manager (records arrive manager by manager).
public struct PropertyList: FieldReformer, Sendable {
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

    /// Maps one listing's four fields into the four keys, passing each field on as it stands (on
    /// the engine's fast path, its bytes are copied; no value is built).
    public mutating func reform(_ record: RecordFields, from manager: ManagerRef, into output: inout FieldOutput) throws(RecordError) {
        if manager.index != cachedManager {
            fields = PropertyList.fieldsByManager[manager.name]
            cachedManager = manager.index
        }
        guard let fields else {
            throw RecordError(
                code: "unknown-manager",
                message: "PropertyListReformer maps zufang, xinfang and ershoufang listings, not '\(manager.name)'")
        }
        for position in constants.indices {
            if let field = record[position] {
                output.append(field)
            } else if strict {
                throw RecordError(
                    code: "missing-field",
                    message: "listing from '\(manager.name)' has no '\(fields[position])' (for \(constants[position])); "
                        + "set option strict: false to emit null instead")
            } else {
                output.appendNull()
            }
        }
    }
}
