public import ReformSDK

/// Declares the property-list reformer to the engine and makes it from a pipeline's options.
public final class PropertyListPlugin: ReformerPlugin {
    /// The plugin object the engine loads.
    public init() {}

    /// The name pipelines use: `plugin: PropertyListReformer`.
    public let name = "PropertyListReformer"

    /// For `reform plugins`.
    public let summary = "Rent (zufang), new-home (xinfang) and second-hand (ershoufang) listings into one list (seeds/004)."

    /// `strict` (default true): whether a record missing a field is rejected or gets null.
    public let options = [
        PluginOption(
            "strict", .bool, default: true,
            doc: "Reject a record that lacks a field (true), or emit null for it (false).")
    ]

    /// The four constant keys, in order.
    public var keys: KeySet? { PropertyList.keySet }

    /// A property-list reformer with the given strictness.
    public func make(options: PluginOptions) throws(PluginOptionError) -> PropertyList {
        PropertyList(strict: try options.bool("strict"))
    }
}
