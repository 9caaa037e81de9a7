// swift-tools-version: 6.1
import PackageDescription

/// A speed check for ReformSDK's JSON reader and writer (not a test: it prints figures, asserts nothing).
/// Run `./run.sh` from this folder; it builds in release mode and compares with jq and orjson.
let package = Package(
    name: "json-bench",
    dependencies: [.package(path: "../../SDK")],
    targets: [
        .executableTarget(
            name: "json-bench",
            dependencies: [.product(name: "ReformSDK", package: "SDK")]
        )
    ]
)
