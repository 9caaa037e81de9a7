/// A reformer plugin: what a plugin library hands the engine. It describes the reformer (name,
/// options, keys) and makes one reformer per chain from the options a pipeline gives it.
///
/// The engine checks the pipeline's `options:` against ``options`` before calling
/// ``make(options:)`` (unknown names, wrong types, missing required options are reported at their
/// line and column), so `make` only validates what a declaration cannot say (ranges, patterns).
/// It makes one reformer for each run (and each worker), so a reformer may keep mutable state.
///
/// ```swift
/// public final class ThumbnailURLPlugin: ReformerPlugin {
///     public init() {}
///     public let name = "ThumbnailURL"
///     public let summary = "Rewrites image URLs into CDN thumbnail URLs."
///     public let options = [PluginOption("width", .int, default: 200, doc: "Thumbnail width in pixels.")]
///     public func make(options: PluginOptions) throws(PluginOptionError) -> ThumbnailURL {
///         ThumbnailURL(width: try options.int("width"))
///     }
/// }
/// ```
public protocol ReformerPlugin<Made>: AnyObject, Sendable {
    /// The reformer type this plugin makes.
    associatedtype Made: Reformer

    /// The name pipelines use in `plugin:`; the same as the library's product name.
    var name: String { get }

    /// One line saying what the reformer does, for `reform plugins`.
    var summary: String { get }

    /// The options the reformer takes, in the order `reform plugins` lists them.
    var options: [PluginOption] { get }

    /// The keys the reformer emits, when it can say so without options (for `reform plugins` and
    /// `reform keys`); `nil` when it keeps the shape of its input or the keys depend on options.
    var keys: KeySet? { get }

    /// A new reformer configured with `options`, which hold every declared option with a default
    /// and have been checked against ``options``.
    func make(options: PluginOptions) throws(PluginOptionError) -> Made
}

extension ReformerPlugin {
    /// By default a plugin has no summary.
    public var summary: String { "" }

    /// By default a plugin takes no options.
    public var options: [PluginOption] { [] }

    /// By default a plugin does not declare keys up front.
    public var keys: KeySet? { nil }

    /// A reformer made with no options but the declared defaults.
    public func makeWithDefaults() throws(PluginOptionError) -> Made {
        try make(options: PluginOptions(checking: Object(), against: options))
    }
}
