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
run_tool() {
    case "$1" in
        reform) measure "$1" "$reform" run "$here/events.yaml" --input events="$work/events.ndjson" --quiet --output "$work/$1.csv" ;;
        reform-jobs2) measure "$1" "$reform" run "$here/events.yaml" --input events="$work/events.ndjson" --quiet --jobs 2 --output "$work/$1.csv" ;;
        python-json) measure "$1" python3 "$here/rows_csv.py" "$work/events.ndjson" "$work/$1.csv" json ;;
        python-orjson) measure "$1" python3 "$here/rows_csv.py" "$work/events.ndjson" "$work/$1.csv" orjson ;;
    esac
}
rounds csv

read -r reform_s _ < <(best reform)
echo
echo "CSV rows: $n rows from $(wc -c < "$work/events.ndjson" | awk '{ printf "%.0f", $1 / 1e6 }') MB of NDJSON, best of $runs; $(nproc) cores; outputs byte-identical"
table rows "$n" reform
read -r python_s _ < <(best python-json)
if awk -v a="$python_s" -v b="$reform_s" 'BEGIN { exit !(b < a) }'; then
    echo "target (reform faster than Python's csv module): met"
else
    echo "target (reform faster than Python's csv module): MISSED"
fi
