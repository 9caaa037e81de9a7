// swift-tools-version: 6.1
import PackageDescription

/// The seeds/004 property-list reformer as a Swift plugin: rent, new-home and second-hand listings
/// into one set of constant keys. Built into `.build/debug/libPropertyListReformer.so`.
let package = Package(
    name: "PropertyListReformer",
    products: [
        .library(name: "PropertyListReformer", type: .dynamic, targets: ["PropertyListReformer"])
    ],
    dependencies: [
        .package(path: "../../SDK")
    ],
    targets: [
        .target(
            name: "PropertyListReformer",
            dependencies: [.product(name: "ReformSDK", package: "SDK")]
        ),
        .testTarget(
            name: "PropertyListReformerTests",
            dependencies: ["PropertyListReformer", .product(name: "ReformPluginTesting", package: "SDK")]
        ),
    ]
)
