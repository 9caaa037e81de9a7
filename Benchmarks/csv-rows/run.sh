#!/usr/bin/env bash
# CSV rows benchmark: render N events from NDJSON as CSV rows (Benchmarks/csv-rows/events.yaml)
# with reform, against Python's csv module writing the same rows from the same NDJSON (parsed
# with the standard json module, and with orjson when it is installed). Outputs must be
# byte-identical.
#
#   Benchmarks/csv-rows/run.sh [N]       # N rows (default 1000000)
#
# Environment: RUNS=3 (best wall time and highest peak RSS are reported), REFORM_BIN=... (skip the
# build), SEED=5, KEEP=1 (keep the temp folder), TMPDIR=... (needs ~200 bytes per row).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
default_n=1000000
source "$root/Benchmarks/benchmark-arguments.sh"

work="$(mktemp -d "${TMPDIR:-/tmp}/reform-csv-rows.XXXXXX")"
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT

echo "generating $n events..." >&2
python3 "$here/generate.py" "$n" "$work/events.ndjson" "${SEED:-5}"

source "$root/Benchmarks/measure.sh"

tools="reform reform-jobs2 python-json"
python3 -c 'import orjson' 2>/dev/null && tools="$tools python-orjson"
for tool in $tools; do : > "$work/$tool.times"; done
for round in $(seq 1 "$runs"); do
    for tool in $tools; do  # interleaved, so background load hits every tool alike
        echo "round $round/$runs: $tool" >&2
        case "$tool" in
            reform) measure "$tool" "$reform" run "$here/events.yaml" --input events="$work/events.ndjson" --quiet --output "$work/$tool.csv" ;;
            reform-jobs2) measure "$tool" "$reform" run "$here/events.yaml" --input events="$work/events.ndjson" --quiet --jobs 2 --output "$work/$tool.csv" ;;
            python-json) measure "$tool" python3 "$here/rows_csv.py" "$work/events.ndjson" "$work/$tool.csv" json ;;
            python-orjson) measure "$tool" python3 "$here/rows_csv.py" "$work/events.ndjson" "$work/$tool.csv" orjson ;;
        esac
    done
    if [ "$round" = 1 ]; then
        for tool in $tools; do
            cmp "$work/reform.csv" "$work/$tool.csv" || die "$tool's CSV differs from reform's (KEEP=1 keeps $work)"
        done
        echo "outputs byte-identical: $tools ($(wc -c < "$work/reform.csv") bytes)" >&2
    fi
done

read -r reform_s _ < <(best reform)
echo
echo "CSV rows: $n rows from $(wc -c < "$work/events.ndjson" | awk '{ printf "%.0f", $1 / 1e6 }') MB of NDJSON, best of $runs; $(nproc) cores; outputs byte-identical"
printf '%-16s %9s %12s %9s %12s\n' tool seconds rows/s "peak MiB" "vs reform"
for tool in $tools; do
    read -r s kib < <(best "$tool")
    printf '%-16s %9.3f %12.0f %9.1f %11.2fx\n' "$tool" "$s" "$(awk -v n="$n" -v s="$s" 'BEGIN { print n / s }')" \
        "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$(awk -v a="$s" -v b="$reform_s" 'BEGIN { print a / b }')"
done
read -r python_s _ < <(best python-json)
if awk -v a="$python_s" -v b="$reform_s" 'BEGIN { exit !(b < a) }'; then
    echo "target (reform faster than Python's csv module): met"
else
    echo "target (reform faster than Python's csv module): MISSED"
fi
