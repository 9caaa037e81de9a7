/// The files of a new plugin package; `__NAME__` is the plugin's name, `__SDK__` the SDK's path.
extension PluginScaffold {
    static let templates: [(path: String, contents: String)] = [
        (".gitignore", ".build/\n.swiftpm/\nPackage.resolved\n"),
        ("Package.swift", manifest),
        ("Sources/__NAME__/PluginEntry.swift", entryPoints),
        ("Sources/__NAME__/__NAME__Plugin.swift", plugin),
        ("Sources/__NAME__/__NAME__.swift", reformer),
        ("Tests/__NAME__Tests/__NAME__Tests.swift", tests),
    ]

    static let manifest = """
        // swift-tools-version: 6.1
        import PackageDescription

        /// The __NAME__ reformer plugin for Reform, built into `.build/debug/lib__NAME__.so`.
        /// `reform plugins build __NAME__` (or `swift build`) builds it; `swift test` runs its conformance tests.
        let package = Package(
            name: "__NAME__",
            products: [
                .library(name: "__NAME__", type: .dynamic, targets: ["__NAME__"])
            ],
            dependencies: [
                .package(path: "__SDK__")
            ],
            targets: [
                .target(name: "__NAME__", dependencies: [.product(name: "ReformSDK", package: "SDK")]),
                .testTarget(
                    name: "__NAME__Tests",
                    dependencies: ["__NAME__", .product(name: "ReformPluginTesting", package: "SDK")]
                ),
            ]
        )

        """

    static let entryPoints = """
        import ReformSDK

        /// The plugin ABI version this library was built against (checked by the engine first).
        @_cdecl("reform_plugin_abi_version")
        public func reformPluginABIVersion() -> Int32 { ReformPluginABI.version }

        /// The plugin object, retained for the engine.
        @_cdecl("reform_plugin_create")
        public func reformPluginCreate() -> UnsafeMutableRawPointer { ReformPluginABI.export(__NAME__Plugin()) }

        """

    static let plugin = """
        public import ReformSDK

        /// Declares the __NAME__ reformer and its options to the engine.
        public final class __NAME__Plugin: ReformerPlugin {
            /// The plugin object the engine loads.
            public init() {}

            /// The name pipelines use: `plugin: __NAME__`.
            public let name = "__NAME__"

            /// For `reform plugins`.
            public let summary = "Upper-cases one string field (replace this with what your reformer does)."

            /// The options, as `reform plugins` lists them.
            public let options = [
                PluginOption("key", .string, default: "name", doc: "The field to upper-case.")
            ]

            /// A reformer from checked options.
            public func make(options: PluginOptions) throws(PluginOptionError) -> __NAME__ {
                __NAME__(key: try options.string("key"))
            }
        }

        """

    static let reformer = """
        public import ReformSDK

        /// Upper-cases the string in one field; other fields, and non-string values, pass unchanged.
        public struct __NAME__: Reformer, Sendable {
            /// The field to upper-case.
            public let key: String

            /// A reformer for the field `key`.
            public init(key: String) {
                self.key = key
            }

            /// Reforms one record.
            public func reform(_ record: Value, from manager: ManagerRef, into output: inout RecordBuffer) throws(RecordError) {
                guard case .object(var object) = record else {
                    throw RecordError(code: "not-an-object", message: "__NAME__ reforms objects, not \\(record.kindName)")
                }
                if case .string(let text)? = object[key] { object[key] = .string(text.uppercased()) }
                output.append(.object(object))
            }
        }

        """

    static let tests = """
        import __NAME__
        import ReformPluginTesting
        import ReformSDK
        import Testing

        struct __NAME__Tests {
            @Test func conforms() {
                let report = ReformerConformance.check(__NAME__Plugin(), samples: ["listings": [["id": 1, "name": "Shanghai"]]])
                #expect(report.passed, "\\(report)")
            }

            @Test func upperCasesTheField() throws {
                var reformer = try __NAME__Plugin().makeWithDefaults()
                let manager = ManagerRef(index: 0, name: "listings")
                var out = RecordBuffer(origin: Origin(manager: manager, sequence: 1))
                try reformer.reform(["id": 1, "name": "Shanghai"], from: manager, into: &out)
                #expect(out.records.map(\\.value) == [["id": 1, "name": "SHANGHAI"]])
            }
        }

        """
}
