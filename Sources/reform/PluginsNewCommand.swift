import ArgumentParser
import ReformEngine
import ReformTooling

/// `reform plugins new NAME`: scaffold a plugin package that builds and passes its tests as generated.
struct PluginsNewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a plugin package (Plugins/NAME, or --output DIR/NAME) ready to build and test.",
        discussion: """
            The package depends on the ReformSDK package: ../../SDK inside a Reform checkout, otherwise its \
            absolute path (--sdk, else REFORM_SDK, else the sdk/ that came with this reform in a release bundle \
            or the Debian package, else the SDK/ of the checkout this reform was built from).
            """)

    @Argument(help: "The plugin's name, a Swift type name such as ThumbnailURL.")
    var name: String

    @Option(help: ArgumentHelp("The folder to create the package in.", valueName: "DIR"))
    var output = "Plugins"

    @Option(help: ArgumentHelp("The ReformSDK package folder.", valueName: "PATH"))
    var sdk: String?

    /// The SDK beside the sources this binary was built from.
    static let builtFromSDK: String = {
        var path = "\(#filePath)"
        for _ in 0..<3 { path = TextFiles.folder(of: path) }
        return path + "/SDK"
    }()

    func run() throws {
        do {
            let scaffold = try PluginScaffold(
                name: name, parent: output,
                sdk: sdk ?? Terminal.environment["REFORM_SDK"] ?? PluginScaffold.installedSDK ?? Self.builtFromSDK)
            try scaffold.write()
            print("created plugin package \(scaffold.folder) (SDK: \(scaffold.sdkReference))")
            print("next: swift test --package-path \(scaffold.folder)    # build it and run its conformance tests")
            print("      then use it in a pipeline: reformers: { mine: { plugin: \(name) } }")
        } catch {
            Terminal.error("reform: \(error)")
            throw ExitCode(ExitStatus.runFailed.rawValue)
        }
    }
}
