// swift-tools-version: 6.1
import PackageDescription

/// Plugin libraries that are broken on purpose, one per loader failure, built by the CLI tests.
let package = Package(
    name: "BrokenPlugins",
    products: [
        .library(name: "WrongABI", type: .dynamic, targets: ["WrongABI"]),
        .library(name: "NoEntryPoints", type: .dynamic, targets: ["NoEntryPoints"]),
        .library(name: "NotAReformer", type: .dynamic, targets: ["NotAReformer"]),
    ],
    dependencies: [.package(path: "../../../../SDK")],
    targets: [
        .target(name: "WrongABI", dependencies: [.product(name: "ReformSDK", package: "SDK")]),
        .target(name: "NoEntryPoints", dependencies: [.product(name: "ReformSDK", package: "SDK")]),
        .target(name: "NotAReformer", dependencies: [.product(name: "ReformSDK", package: "SDK")]),
    ]
)
