import ReformEngine

/// `reform plugins new NAME`: a plugin package that builds and passes its conformance tests as
/// generated, in the repository's `Plugins/` or in any folder outside it.
package struct PluginScaffold: Sendable {
    /// The plugin's name: its product, module and `plugin:` name.
    package let name: String
    /// The package folder to create.
    package let folder: String
    /// How the package's manifest names the SDK package (a relative or an absolute path).
    package let sdkReference: String

    /// A scaffold for `name` in `parent/name`, depending on the SDK package at `sdk`: by a relative
    /// path when it is the `SDK/` of the repository the folder is in (`../../SDK`), otherwise by
    /// its absolute path.
    package init(name: String, parent: String, sdk: String) throws(ScaffoldError) {
        guard PluginSearchPath.isValidName(name) else {
            throw ScaffoldError("'\(name)' cannot name a plugin: use a Swift type name like ThumbnailURL (letters, digits, '_')")
        }
        guard let sdkPath = PluginSearchPath.absolute(sdk), FilePaths.isFile(sdkPath + "/Package.swift") else {
            throw ScaffoldError(
                "no ReformSDK package at \(sdk); pass --sdk PATH (the SDK/ folder of a Reform checkout, or sdk/ of a release bundle) "
                    + "or set REFORM_SDK")
        }
        guard let parentPath = PluginSearchPath.absolute(parent), FilePaths.isDirectory(parentPath) else {
            throw ScaffoldError("the folder \(parent) does not exist; create it first")
        }
        self.name = name
        folder = parentPath + "/" + name
        let relative = PluginSearchPath.absolute(parentPath + "/../SDK")
        sdkReference = relative == sdkPath ? "../../SDK" : sdkPath
    }

    /// The SDK package that came with the running program: `sdk/` beside the folder of its
    /// executable (`reform-VERSION/bin/reform` of a release bundle, `/usr/lib/reform/bin/reform` of
    /// the Debian package), holding the sources its `libReformSDK.so` was built from; `nil` when
    /// there is none (a build from a checkout).
    package static let installedSDK: String? = {
        guard let executable = PluginSearchPath.absolute("/proc/self/exe") else { return nil }
        let sdk = FilePaths.resolve("sdk", against: FilePaths.folder(of: FilePaths.folder(of: executable)))
        return FilePaths.isFile(sdk + "/Package.swift") ? sdk : nil
    }()

    /// The files to write, relative to ``folder``.
    package var files: [(path: String, contents: String)] {
        PluginScaffold.templates.map { template in
            (fill(template.path), fill(template.contents))
        }
    }

    /// Writes the package; refuses to overwrite an existing folder.
    package func write() throws(ScaffoldError) {
        guard !FilePaths.isDirectory(folder) else {
            throw ScaffoldError("\(folder) already exists; choose another name or remove it")
        }
        for file in files {
            do { try TextFiles.write(file.contents, to: folder + "/" + file.path) } catch {
                throw ScaffoldError(error.description)
            }
        }
    }

    private func fill(_ template: String) -> String {
        template.replacing("__NAME__", with: name).replacing("__SDK__", with: sdkReference)
    }
}

/// A plugin package could not be created.
package struct ScaffoldError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    package let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    package var description: String { message }
}
