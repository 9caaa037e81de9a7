#!/usr/bin/env bash
# Checks that a Swift package outside this repository can depend on Reform by URL and version:
# clones the committed HEAD into a temporary folder, tags it with the release
# (Sources/ReformEngine/ReformVersion.swift), and builds and runs a consumer package that depends on
# it by file:// URL `from:` that tag. The consumer registers a Swift
# reformer in process and runs a pipeline through the library API (PipelineLoader, Runner); its
# output must equal the expected records. Prints how long it took.
#
#   scripts/check-url-dependency.sh [--keep]      # --keep leaves the temporary folder for a look
#
# Uncommitted changes are not part of the clone: commit first. The consumer's first build compiles
# SwiftNIO, AsyncHTTPClient and BoringSSL (3 min 43 s in all on this 2-core VM).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
keep=false
[ "${1:-}" = --keep ] && keep=true
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH

version=$(sed -n 's/^ *public static let release = "\([^"]*\)".*/\1/p' Sources/ReformEngine/ReformVersion.swift)
work=$(mktemp -d "${TMPDIR:-/tmp}/reform-url-dependency.XXXXXX")
$keep || trap 'rm -rf "$work"' EXIT
started=$(date +%s)

git clone --quiet --no-hardlinks "$root" "$work/reform"
git -C "$work/reform" tag -f "$version" >/dev/null
echo "== $work/reform: HEAD $(git -C "$work/reform" rev-parse --short HEAD) tagged $version"

mkdir -p "$work/consumer/Sources/consumer"
cat >"$work/consumer/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

// A program that embeds Reform, by URL and version. Built as a dependency, Reform compiles ReformSDK
// into itself (see builtAsDependency in its Package.swift).
let package = Package(
    name: "consumer",
    dependencies: [
        .package(url: "file://$work/reform", from: "$version")
    ],
    targets: [
        .executableTarget(
            name: "consumer",
            dependencies: [
                .product(name: "ReformEngine", package: "reform"),
                .product(name: "ReformSDK", package: "reform"),
            ])
    ]
)
EOF
cp "$root/scripts/url-dependency-consumer.swift" "$work/consumer/Sources/consumer/main.swift"

echo "== swift build (consumer of reform $version by file:// URL)"
swift build --package-path "$work/consumer" 2>&1 | tail -3
built=$(date +%s)
output=$("$work/consumer/.build/debug/consumer")
expected='{"ID":"z1","LABEL":"ZU-1 ROOM ONE"}
{"ID":"z2","LABEL":"ZU-2 ROOM TWO"}'
if [ "$output" != "$expected" ]; then
    echo "check-url-dependency.sh: the consumer printed:" >&2
    echo "$output" >&2
    echo "expected:" >&2
    echo "$expected" >&2
    exit 1
fi
echo "$output"
echo "check-url-dependency.sh: a package depending on reform $version by URL built in $((built - started)) s and ran a pipeline with an in-process Swift reformer"
