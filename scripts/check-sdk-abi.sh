#!/usr/bin/env bash
# Fails when the plugin SDK's binary interface breaks what a plugin built against plugin ABI 1
# uses: the ReformSDK just built (its ABI descriptor, Modules/ReformSDK.abi.json, which library
# evolution makes the compiler write) is compared with the one recorded in SDK/abi/ by
# swift-api-digester, and any removed or moved declaration, changed type, layout of a frozen type,
# conformance or requirement fails. Additions pass: a plugin built before still loads.
#
# A break that is meant: raise ReformPluginABI.version (SDK/Sources/ReformSDK/Plugin/PluginABI.swift),
# so the engine refuses older plugins with what to rebuild, and record the new descriptor.
#
#   scripts/check-sdk-abi.sh             # run by .ci/run after 'swift build'
#   scripts/check-sdk-abi.sh --record    # write SDK/abi/ReformSDK.abi.json from this build
set -euo pipefail
cd "$(dirname "$0")/.."

baseline=SDK/abi/ReformSDK.abi.json
current="$(swift build --show-bin-path)/Modules/ReformSDK.abi.json"
if [ ! -f "$current" ]; then
    echo "$current is missing: run 'swift build' first" >&2
    exit 1
fi
if [ "${1:-}" = "--record" ]; then
    cp "$current" "$baseline"
    echo "recorded $baseline"
    exit 0
fi
report=$(swift-api-digester -diagnose-sdk -abi -input-paths "$baseline" -input-paths "$current" 2>&1)
# The report is a heading per kind of change (/* Removed Decls */ …) with a line per change. A new
# declaration is reported for want of '@available', which only Apple's platforms version; on
# Linux an addition breaks nothing.
breaks=$(printf '%s\n' "$report" | grep -v '^/\*' | grep -v '^[[:space:]]*$' | grep -v "is a new API without '@available'" || true)
if [ -n "$breaks" ]; then
    echo "the plugin SDK's ABI changed in a way plugins built against plugin ABI 1 would not survive:"
    printf '%s\n' "$breaks" | sed 's/^/  /'
    echo "keep the old declarations (add new ones beside them), or raise ReformPluginABI.version and"
    echo "record the new interface with scripts/check-sdk-abi.sh --record"
    exit 1
fi
echo "the plugin SDK's ABI keeps every declaration of $baseline"
