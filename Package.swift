// swift-tools-version: 6.1
import PackageDescription

/// Reform: discrete API managers, reformer chains declared in YAML, constant-keyed output.
///
/// `ReformSDK` (the API plugins compile against) is a separate package with a `.dynamic` product so
/// that the engine and every plugin share one copy of its types; see shared/notes/plugins-on-linux.md.
let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Whether another package depends on this one (by URL and version) rather than this checkout being
/// built itself. SwiftPM refuses a path dependency in a package required by version ("package
/// 'reform' is required using a stable-version but 'reform' depends on an unstable-version package
/// 'sdk'"), and a target of this package cannot depend on a product of this package (the engine
/// would then link the SDK statically, and `.so` plugins would get a second copy of its types). So
/// as a dependency, Reform compiles the SDK's sources into itself (`SDK/Sources`, library evolution
/// off): a program that embeds Reform registers its reformers in process
/// (`PipelineLoader.plugins`); built here, the CLI shares the SDK package's `libReformSDK.so` with
/// its plugins. SwiftPM reads a dependency's manifest at `/` (from the repository, while resolving)
/// and in a `checkouts` folder (`.build/checkouts`, Xcode's `SourcePackages/checkouts`); a checkout
/// has no other mark. `REFORM_EMBEDDED_SDK=1` or `=0` chooses by hand.
/// `scripts/check-url-dependency.sh` builds a package that depends on Reform by URL.
let builtAsDependency: Bool = {
    switch Context.environment["REFORM_EMBEDDED_SDK"] {
    case "1": return true
    case "0": return false
    default:
        let folder = Context.packageDirectory
        return folder == "/" || folder.split(separator: "/").contains("checkouts")
    }
}()

let sdk: Target.Dependency =
    builtAsDependency ? .target(name: "ReformSDK") : .product(name: "ReformSDK", package: "SDK")
let pluginTesting: Target.Dependency =
    builtAsDependency ? .target(name: "ReformPluginTesting") : .product(name: "ReformPluginTesting", package: "SDK")

let package = Package(
    name: "Reform",
    products: [
        .executable(name: "reform", targets: ["reform"]),
        .executable(name: "reform-init", targets: ["reform-init"]),
        .executable(name: "reform-studio", targets: ["reform-studio"]),
        .library(name: "ReformEngine", targets: ["ReformEngine"]),
        .library(name: "ReformYAML", targets: ["ReformYAML"]),
        .library(name: "ReformEngineTesting", targets: ["ReformEngineTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // HMAC for the `sign` interceptor; already in the graph through async-http-client's TLS stack.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // TLS settings of `https://` services (`tls:`: a private CA, a client certificate); already
        // in the graph through async-http-client.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The engine accepts a `Logger` (never makes one); the CLI makes it, writing to stderr.
        // Already in the graph through async-http-client.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation --target ReformEngine` (the DocC catalog in
        // Sources/ReformEngine/ReformEngine.docc); a command plugin, never linked into Reform.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `reform init --openapi` reads OpenAPI 3.0, 3.1 and 3.2 documents through OpenAPIKit's typed
        // model (3.0 converted by OpenAPIKitCompat), decoded from ReformYAML's nodes so that every
        // problem has a line and column. No traits: external loading is not used.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0", traits: []),
        // `reform studio`'s local web server (reform-studio): routes, request bodies and a graceful
        // stop over the swift-nio already in the graph. No traits: neither swift-configuration nor
        // all of Foundation is needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // The header names the studio sets; already in the graph through hummingbird.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        // The C library, re-exported, and the shims for what differs between glibc, musl and Darwin:
        // every target of this package imports ReformSystem, never Glibc, Musl or Darwin, so that a
        // port touches this one module (scripts/check-platform-imports.sh keeps it so).
        .target(name: "ReformSystem", swiftSettings: upcomingFeatures),
        .target(name: "ReformYAML", dependencies: ["CYAML", "ReformSystem", sdk], swiftSettings: upcomingFeatures),
        // Gzip inputs use the system zlib: one C library every Linux has, and gzread streams from a
        // descriptor, which is all reading `.ndjson.gz` needs (compress-nio would bring swift-nio).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // `sqlite:` outputs and inputs use the system SQLite: one C library Debian ships, nothing
        // more to build in CI, and prepared statements and transactions are all the engine needs
        // (GRDB would add a Swift dependency for query building and observation we do not use).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // `postgres:` outputs and inputs use the system libpq: its COPY protocol is the fastest way
        // to load rows, and it is one C library Debian ships (postgres-nio would bring an event
        // loop and a connection pool to what is one connection and one transaction per run).
        // Declarations only (no pkg-config, nothing linked): the engine loads libpq.so.5 when a
        // PostgreSQL table is first used, because linking it (with OpenSSL, Kerberos and LDAP)
        // cost every run 5.6 MB at start (Tables/LibPQ.swift).
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
        // sync_file_range(2), which the Glibc module leaves out (it needs _GNU_SOURCE): declared in
        // a header of our own, nothing to link (Output/OutputFile.swift starts write-back early).
        .systemLibrary(name: "CWriteback"),
        // The compiler's prefetch hint, declared in a header of our own (Sorting/LineSort.swift).
        .systemLibrary(name: "CPrefetch"),
        // Locks, threads, a blocking executor and the monotonic clock: the one home for them, so the
        // HTTP client below and the engine share them without either reaching into the other.
        .target(name: "ReformConcurrency", dependencies: ["ReformSystem"], swiftSettings: upcomingFeatures),
        // The built-in HTTP/1.1 client for `http://` and `https://` (TLS over the system OpenSSL, loaded
        // with dlopen when first used, nothing linked): imports nothing of the engine, which maps
        // its failures to `TransportError` (Transport/HTTP1Failure+TransportError.swift).
        .target(name: "ReformHTTP1", dependencies: ["ReformConcurrency", "ReformSystem"], swiftSettings: upcomingFeatures),
        .target(
            name: "ReformEngine",
            dependencies: [
                "ReformYAML", "CZlib", "CSQLite", "CLibPQ", "CWriteback", "CPrefetch", "ReformConcurrency", "ReformHTTP1", "ReformSystem",
                sdk,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: upcomingFeatures
        ),
        // For tests of pipelines and of programs that embed Reform (as HummingbirdTesting is for
        // hummingbird): a scripted in-memory transport and a run harness.
        .target(
            name: "ReformEngineTesting", dependencies: ["ReformEngine", "ReformConcurrency", "ReformSystem", "CZlib", "CSQLite", sdk],
            swiftSettings: upcomingFeatures),
        // What only the command line uses: `reform cat`, `keys`, `test`, and the plugin scaffold,
        // builder and listing. Kept out of the runtime library that programs embed.
        .target(
            name: "ReformTooling", dependencies: ["ReformEngine", "ReformYAML", "ReformConcurrency", "ReformSystem", sdk],
            swiftSettings: upcomingFeatures),
        // `reform init`: pipelines from OpenAPI documents. OpenAPIKit needs all of Foundation (and
        // ICU, ~53 MB of libraries that cost every run 5-7 ms to load: StartupTests), so it lives in
        // an executable of its own, `reform-init`, beside `reform`, which hands `init` over to it.
        .target(
            name: "ReformInit",
            dependencies: [
                "ReformEngine", "ReformTooling", "ReformYAML", "ReformSystem", sdk,
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
            ],
            swiftSettings: upcomingFeatures),
        .executableTarget(
            name: "reform-init",
            dependencies: [
                "ReformInit", "ReformEngine", "ReformTooling", "ReformSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcomingFeatures),
        // `reform studio`: a local page that shows a pipeline working, served by Hummingbird in a
        // program of its own, `reform-studio`, beside `reform` (as `reform-init` is), so that the
        // server's libraries cost `reform`'s other commands nothing. Its page (Page/) is compiled
        // into the program: it works offline and from the release bundle.
        .target(
            name: "ReformStudio",
            dependencies: [
                "ReformEngine", "ReformTooling", "ReformYAML", "ReformConcurrency", "ReformSystem", sdk,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.embedInCode("Page/studio.html"), .embedInCode("Page/studio.css"), .embedInCode("Page/studio.js")],
            swiftSettings: upcomingFeatures),
        .executableTarget(
            name: "reform-studio",
            dependencies: [
                "ReformStudio", "ReformEngine", "ReformSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcomingFeatures),
        .executableTarget(
            name: "reform",
            dependencies: [
                "ReformEngine", "ReformTooling", "ReformSystem", sdk,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "ReformSDKTests", dependencies: [sdk, pluginTesting, "ReformSystem", "ReformTestSupport"],
            swiftSettings: upcomingFeatures),
        .testTarget(name: "ReformYAMLTests", dependencies: ["ReformYAML", sdk], swiftSettings: upcomingFeatures),
        // Helpers every test target shares (running the built `reform`, the project root).
        // The PostgreSQL helper (PostgresServer.swift) starts a throwaway server and checks tables
        // through libpq directly, not through the code it tests.
        .target(
            name: "ReformTestSupport", dependencies: ["CLibPQ", "ReformSystem"], path: "Tests/ReformTestSupport",
            swiftSettings: upcomingFeatures, linkerSettings: [.linkedLibrary("pq")]),
        .testTarget(
            name: "ReformEngineTests",
            dependencies: [
                "ReformEngine", "ReformEngineTesting", "ReformTooling", "ReformInit", "ReformStudio", "ReformYAML", "ReformSystem",
                sdk, "ReformTestSupport",
                .product(name: "Logging", package: "swift-log"),
                // Tests read and prepare SQLite files directly, not through the code they test.
                "CSQLite",
            ],
            // `reform init`'s OpenAPI documents and the pipelines written from them (InitOpenAPITests), and
            // the golden transcript of a watched run (RunWatchTests).
            exclude: ["Init/Documents", "Init/Goldens", "Watching/Goldens"],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "ReformCLITests", dependencies: [sdk, "ReformSystem", "ReformTestSupport"], exclude: ["Snapshots", "Inputs"],
            swiftSettings: upcomingFeatures),
    ]
)

if builtAsDependency {
    // The SDK's sources as targets of this package (see `builtAsDependency`); the same products a
    // plugin author gets from SDK/Package.swift, without its library evolution (an unsafe flag,
    // which SwiftPM refuses in a package required by version).
    package.targets += [
        .target(name: "CJSONVector", path: "SDK/Sources/CJSONVector"),
        .target(
            name: "ReformSDK", dependencies: ["CJSONVector"], path: "SDK/Sources/ReformSDK", swiftSettings: upcomingFeatures),
        .target(
            name: "ReformPluginTesting", dependencies: ["ReformSDK"], path: "SDK/Sources/ReformPluginTesting",
            swiftSettings: upcomingFeatures),
    ]
    package.products += [
        .library(name: "ReformSDK", targets: ["ReformSDK"]),
        .library(name: "ReformPluginTesting", targets: ["ReformPluginTesting"]),
    ]
} else {
    package.dependencies.append(.package(path: "SDK"))
}

// libFuzzer targets (Fuzz/), only when REFORM_FUZZ is set, so that `swift build` and CI never need
// `-sanitize=fuzzer`: `Fuzz/run.sh [SECONDS]` sets it and builds them in .build-fuzz.
if Context.environment["REFORM_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzJSON", [sdk]),
        ("FuzzPipeline", ["ReformEngine", sdk]),
        ("FuzzLinkHeader", ["ReformEngine"]),
        ("FuzzTemplate", ["ReformEngine", sdk]),
        ("FuzzHTTPResponse", ["ReformEngine", "ReformHTTP1"]),
        ("FuzzGzipInput", ["ReformEngine"]),
        ("FuzzContentDecoding", ["ReformEngine"]),
        ("FuzzDeadLetter", ["ReformEngine", sdk]),
        ("FuzzTiers", ["ReformEngineTesting"]),
    ]
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: target.name, dependencies: target.dependencies, path: "Fuzz/Sources/\(target.name)",
                swiftSettings: upcomingFeatures))
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}
