public import ReformSDK

/// Declares the ThumbnailURL reformer and its options to the engine.
public final class ThumbnailURLPlugin: ReformerPlugin {
    /// The plugin object the engine loads.
    public init() {}

    /// The name pipelines use: `plugin: ThumbnailURL`.
    public let name = "ThumbnailURL"

    /// For `reform plugins`.
    public let summary = "Rewrites an image URL into a CDN thumbnail URL of a given size and format."

    /// The options, as `reform plugins` lists them.
    public let options = [
        PluginOption("key", .string, default: "kPropertyListDataKeyImage", doc: "The key holding the image URL."),
        PluginOption("into", .string, required: false, doc: "Write the thumbnail URL to this key instead (added if absent)."),
        PluginOption("width", .int, default: 200, doc: "Thumbnail width in pixels, 1 to 4096."),
        PluginOption("height", .int, default: 0, doc: "Thumbnail height in pixels, 0 to 4096; 0 keeps the aspect ratio."),
        PluginOption("format", .string, default: "keep", doc: "Image format: keep, jpg, png or webp."),
        PluginOption("style", .string, default: "suffix", doc: "suffix (name_200x150.jpg) or query (?w=200&h=150)."),
        PluginOption("host", .string, required: false, doc: "Serve thumbnails from this host (a CDN) instead of the image's."),
    ]

    static let formats = ["keep", "jpg", "png", "webp"]

    /// A thumbnail rewriter from checked options; ranges and names are checked here.
    public func make(options: PluginOptions) throws(PluginOptionError) -> ThumbnailURL {
        let format = try options.string("format")
        guard ThumbnailURLPlugin.formats.contains(format) else {
            throw PluginOptionError(
                option: "format", message: "must be one of \(ThumbnailURLPlugin.formats.joined(separator: ", ")), not '\(format)'")
        }
        let styleName = try options.string("style")
        guard let style = ThumbnailURL.Style(rawValue: styleName) else {
            throw PluginOptionError(option: "style", message: "must be suffix or query, not '\(styleName)'")
        }
        return ThumbnailURL(
            key: try options.string("key"),
            into: options.has("into") ? try options.string("into") : nil,
            width: try options.int("width", in: 1...4096),
            height: try options.int("height", in: 0...4096),
            format: format == "keep" ? nil : format,
            style: style,
            host: options.has("host") ? try options.string("host") : nil)
    }
}
