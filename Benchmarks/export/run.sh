#!/usr/bin/env bash
# Export benchmark: an export job on the loopback test server (Tests/Server) whose N rows come as
# 4 gzip CSV result files, rendered as NDJSON (Benchmarks/export/export.yaml), by reform — which
# streams each file to disk and reads its records from there — against Python `requests`
# streaming the same files through gzip and csv.DictReader (export_client.py, the json module,
# and orjson when it is installed). Outputs must be byte-identical. Reports wall time and peak
# memory; the point is memory that stays flat however large the files are.
#
#   Benchmarks/export/run.sh [N]       # N rows (default 1000000)
#
# Environment: RUNS=3 (best wall time and highest peak RSS are reported), REFORM_BIN=... (skip the
# build), REFORM_HELD=... (also time an older reform that holds each file in memory, given
# --max-body-bytes 4 GiB: the figure before streaming), KEEP=1 (keep the temp folder).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
default_n=1000000
source "$root/Benchmarks/benchmark-arguments.sh"
python3 -c 'import requests' 2>/dev/null || die "Python requests is needed (pip install requests)"

work="$(mktemp -d "${TMPDIR:-/tmp}/reform-export.XXXXXX")"
source "$root/Benchmarks/test-server.sh"
cleanup() {
    stop_test_server
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
start_test_server "$work"
base="http://127.0.0.1:$port"
export TEST_URL="$base" TOKEN=job-token

# The server makes each file once (a few seconds for a million rows) and keeps it: warm it up.
echo "making the $n rows' result files..." >&2
python3 "$here/export_client.py" "$base" "$n" 4 "$work/warm.ndjson" >/dev/null

source "$root/Benchmarks/measure.sh"
tools="reform python-json"
python3 -c 'import orjson' 2>/dev/null && tools="$tools python-orjson"
[ -n "${REFORM_HELD:-}" ] && tools="$tools reform-held"
run_tool() {
    case "$1" in
        reform) measure "$1" "$reform" run "$here/export.yaml" --live --quiet --param rows="$n" --output "$work/$1.ndjson" ;;
        reform-held) measure "$1" "$REFORM_HELD" run "$here/export.yaml" --live --quiet --param rows="$n" \
            --max-body-bytes 4294967296 --output "$work/$1.ndjson" ;;
        python-json) measure "$1" python3 "$here/export_client.py" "$base" "$n" 4 "$work/$1.ndjson" json ;;
        python-orjson) measure "$1" python3 "$here/export_client.py" "$base" "$n" 4 "$work/$1.ndjson" orjson ;;
    esac
}
rounds ndjson

echo
echo "Export: $n rows in 4 gzip CSV result files, rendered as NDJSON, best of $runs; $(nproc) cores; outputs byte-identical"
table rows "$n" reform
