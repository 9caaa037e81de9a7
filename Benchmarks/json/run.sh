#!/bin/sh
# Speed check: Reform's JSON parse (+write) against `jq -c .` and Python orjson on the same file.
set -e
cd "$(dirname "$0")"
N=${N:-300000}
FILE=${FILE:-/tmp/reform-json-bench.ndjson}
[ -f "$FILE" ] || python3 generate.py "$N" "$FILE"
swift build -c release --scratch-path .build 2>&1 | tail -1
.build/release/json-bench "$FILE" 5 /tmp/reform-json-bench.out
python3 orjson_bench.py "$FILE" 5
if [ -x /usr/bin/jq ]; then
    start=$(date +%s.%N); /usr/bin/jq -c . "$FILE" > /tmp/reform-json-bench.jq; end=$(date +%s.%N)
    echo "jq -c . (whole process): $(echo "($end - $start) * 1000" | bc | cut -d. -f1) ms"
    cmp /tmp/reform-json-bench.out /tmp/reform-json-bench.jq && echo "output identical to jq -c ."
fi
