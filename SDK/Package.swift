// swift-tools-version: 6.1
import PackageDescription

/// ReformSDK: the API that the engine and reformer plugins share.
///
/// It is a `.dynamic` library of its own package so that the engine and every plugin load one copy
/// of its type metadata (see shared/notes/plugins-on-linux.md); library evolution keeps old plugins
/// working against a newer SDK. Hot-path value types are `@frozen` and their accessors
/// `@inlinable`, so the engine pays nothing for resilience on the data path.
///
/// `ReformPluginTesting` is the conformance kit a plugin's tests call with its reformer.
let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ReformSDK",
    products: [
        .library(name: "ReformSDK", type: .dynamic, targets: ["ReformSDK"]),
        .library(name: "ReformPluginTesting", targets: ["ReformPluginTesting"]),
    ],
    targets: [
        // The JSON locator's vector kernels (AVX2, chosen at run time): C, for the intrinsics that
        // Swift's SIMD types do not reach (a comparison's byte mask, byte shuffles).
        .target(name: "CJSONVector"),
        .target(
            name: "ReformSDK", dependencies: ["CJSONVector"],
            swiftSettings: [.unsafeFlags(["-enable-library-evolution"])] + settings),
        .target(name: "ReformPluginTesting", dependencies: ["ReformSDK"], swiftSettings: settings),
    ]
)
