#!/usr/bin/env bash
# Fails, naming file:line, when a Swift file imports the C library's module (Glibc, Musl, Darwin,
# WinSDK) directly. The engine's targets import ReformSystem (Sources/ReformSystem), which
# re-exports it and holds the shims for what differs between platforms, and the SDK, a package of
# its own, has its one seam file; so a port to another C library touches those two places alone.
#
#   scripts/check-platform-imports.sh        # run by .ci/run
set -euo pipefail
cd "$(dirname "$0")/.."

# The files allowed to import the C library.
seams=(
    Sources/ReformSystem/ReformSystem.swift
    SDK/Sources/ReformSDK/System/CMemory.swift
)
folders=(Sources Tests SDK/Sources Fuzz/Sources Plugins/*/Sources Plugins/*/Tests)
existing=()
for folder in "${folders[@]}"; do [ -d "$folder" ] && existing+=("$folder"); done

# `import Glibc`, with any attributes and access level, and `import func Glibc.write` or `Darwin.C`.
pattern='^[[:space:]]*(@[[:alnum:]_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?(Glibc|Musl|Darwin|WinSDK)([.[:space:]]|$)'
exempt=()
for seam in "${seams[@]}"; do exempt+=(-e "$seam:"); done
found=$(grep -rnE --include='*.swift' "$pattern" "${existing[@]}" | grep -vF "${exempt[@]}" || true)
if [ -n "$found" ]; then
    echo "$found" | sed -E 's/^([^:]+:[0-9]+):.*/\1: imports the C library directly: import ReformSystem instead (in SDK/, call through its seam file, System/CMemory.swift)/'
    exit 1
fi
echo "no Swift file outside ${seams[*]} imports Glibc, Musl, Darwin or WinSDK"
