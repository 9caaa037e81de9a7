#!/usr/bin/env bash
# Plugin speed: the property-list transform through the Swift plugin (Plugins/PropertyListReformer,
# Pipelines/listings-plugins.yaml --run property-list) against the built-in YAML mapping
# (Pipelines/property-list.yaml), on the same generated NDJSON records. Outputs must be identical.
#
#   Benchmarks/plugins/run.sh [N]      # N records per manager (default 100000: 300,000 in all)
#
# Environment: RUNS=5 (best wall time of each is reported), SEED=4, KEEP=1 keeps the temp folder,
# REFORM_BIN=... uses that reform binary instead of a release build in .build-bench,
# STRICT=1 exits 1 when the plugin path is over 1.5x the built-in's time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
n="${1:-${N:-100000}}"
runs="${RUNS:-5}"
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH

if [ -n "${REFORM_BIN:-}" ]; then
    reform="$REFORM_BIN"
else
    echo "building reform and the plugin (release)..." >&2
    (cd "$root" && swift build -c release --scratch-path .build-bench --product reform >&2)
    reform="$(cd "$root" && swift build -c release --scratch-path .build-bench --show-bin-path)/reform"
fi
swift build -c release --package-path "$root/Plugins/PropertyListReformer" >&2

work="$(mktemp -d "${TMPDIR:-/tmp}/reform-plugins.XXXXXX")"
trap '[ "${KEEP:-0}" = 1 ] && echo "kept $work" >&2 || rm -rf "$work"' EXIT
python3 "$root/Benchmarks/property-list/generate.py" "$n" "$work" "${SEED:-4}"
inputs=(--input zufang="$work/zufang.ndjson" --input xinfang="$work/xinfang.ndjson" --input ershoufang="$work/ershoufang.ndjson")

# seconds COMMAND...: wall time of one run, in seconds.
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@"
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}
mapping=("$reform" run "$root/Pipelines/property-list.yaml" --format ndjson --quiet --output "$work/mapping.out" "${inputs[@]}")
plugin=("$reform" run "$root/Pipelines/listings-plugins.yaml" --run property-list --format ndjson --quiet --output "$work/plugin.out" "${inputs[@]}")

: > "$work/mapping.times"; : > "$work/plugin.times"
for round in $(seq 1 "$runs"); do   # interleaved, so background load hits both alike
    seconds "${mapping[@]}" >> "$work/mapping.times"
    seconds "${plugin[@]}" >> "$work/plugin.times"
done
cmp "$work/mapping.out" "$work/plugin.out" || { echo "run.sh: FAIL: plugin output differs from the mapping's" >&2; exit 1; }

best() { sort -n "$1" | head -1; }
m=$(best "$work/mapping.times"); p=$(best "$work/plugin.times")
ratio=$(awk -v a="$p" -v b="$m" 'BEGIN { printf "%.2f", a / b }')
records=$((3 * n))
echo "property-list, $records records ($n per manager), best of $runs, $(nproc) cores; outputs identical"
printf '%-28s %8s %12s\n' path seconds records/s
printf '%-28s %8.3f %12.0f\n' "YAML mapping (built-in)" "$m" "$(awk -v n=$records -v s="$m" 'BEGIN { print n / s }')"
printf '%-28s %8.3f %12.0f\n' "Swift plugin" "$p" "$(awk -v n=$records -v s="$p" 'BEGIN { print n / s }')"
echo "plugin / built-in: ${ratio}x (target: at most 1.5x)"
if awk -v r="$ratio" 'BEGIN { exit !(r > 1.5) }'; then
    echo "target: MISSED"
    [ "${STRICT:-0}" = 1 ] && exit 1
else
    echo "target: met"
fi
