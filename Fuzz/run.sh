#!/usr/bin/env bash
# Builds the libFuzzer targets (in .build-fuzz, apart from the normal build) and runs each for
# SECONDS (default 60), seeded from the repo's pipelines, JSON fixtures, the JSONTestSuite in
# ../shared/conformance and Fuzz/Seeds. Prints executions and crashes per target; crashing inputs
# land in .build-fuzz-work/artifacts/TARGET/. Usage: Fuzz/run.sh [SECONDS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")"
root=$(cd .. && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzJSON FuzzPipeline FuzzLinkHeader FuzzTemplate FuzzHTTPResponse FuzzGzipInput FuzzContentDecoding FuzzDeadLetter FuzzTiers)
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
scratch="$root/.build-fuzz"
work="$root/.build-fuzz-work" # corpora, logs and crashing inputs, apart from SwiftPM's scratch path

export REFORM_FUZZ=1
cd "$root"
for target in "${targets[@]}"; do
    swift build -c debug --sanitize=fuzzer --scratch-path "$scratch" --product "$target" >&2 || exit 1
done
bin=$(swift build -c debug --sanitize=fuzzer --scratch-path "$scratch" --show-bin-path)
cd "$root/Fuzz"

seed() { # TARGET -> corpus folder with that target's seeds copied in
    local corpus="$work/corpus/$1"
    mkdir -p "$corpus"
    case $1 in
        FuzzJSON)
            find "$root/../shared/conformance/json" "$root/Tests" -name '*.json' -size -64k \
                -exec cp -n {} "$corpus/" \; 2>/dev/null ;;
        FuzzPipeline) cp -n "$root"/Pipelines/*.yaml "$corpus/" ;;
        FuzzLinkHeader) cp -n Seeds/link/* "$corpus/" ;;
        FuzzTemplate) cp -n Seeds/template/* "$corpus/" ;;
        FuzzHTTPResponse) cp -n Seeds/http/* "$corpus/" ;;
        FuzzGzipInput | FuzzContentDecoding | FuzzDeadLetter) cp -n Seeds/ndjson/* "$corpus/" ;;
        FuzzTiers) cp -n Seeds/tiers/* "$corpus/" ;;
    esac
    echo "$corpus"
}

status=0
for target in "${targets[@]}"; do
    corpus=$(seed "$target")
    artifacts="$work/artifacts/$target"
    mkdir -p "$artifacts"
    log="$work/$target.log"
    "$bin/$target" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1
    code=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    crashes=$(find "$artifacts" -type f | wc -l)
    echo "$target: ${seconds}s, ${runs:-?} executions, exit $code, $crashes crashing inputs in $artifacts"
    [ "$code" -eq 0 ] || { status=1; grep -m3 -E 'ERROR|Fatal error|==[0-9]+==' "$log" || true; }
done
exit $status
