// swift-tools-version: 6.1
import PackageDescription

/// Image URLs into CDN thumbnail URLs, a reformer plugin that does what no YAML step can:
/// rewriting URLs by their parts. Built into `.build/debug/libThumbnailURL.so`.
let package = Package(
    name: "ThumbnailURL",
    products: [
        .library(name: "ThumbnailURL", type: .dynamic, targets: ["ThumbnailURL"])
    ],
    dependencies: [
        .package(path: "../../SDK")
    ],
    targets: [
        .target(
            name: "ThumbnailURL",
            dependencies: [.product(name: "ReformSDK", package: "SDK")]
        ),
        .testTarget(
            name: "ThumbnailURLTests",
            dependencies: ["ThumbnailURL", .product(name: "ReformPluginTesting", package: "SDK")]
        ),
    ]
)
