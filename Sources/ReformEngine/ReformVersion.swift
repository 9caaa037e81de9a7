import ReformSDK

/// Which Reform this is: the release, and the plugin ABI it loads.
///
/// `reform --version` prints ``description``; a program that embeds the engine can log it.
public enum ReformVersion {
    /// The release, in semantic-versioning form.
    public static let release = "0.9.0"

    /// The plugin ABI this engine loads (`ReformPluginABI.version`): a plugin built
    /// against another ABI is refused with what to rebuild.
    public static var pluginABI: Int32 { ReformPluginABI.version }

    /// `0.9.0 (plugin ABI 1)`.
    public static var description: String { "\(release) (plugin ABI \(pluginABI))" }
}
