# Sourced by the benchmark scripts: `measure NAME CMD...` runs CMD once and appends "seconds
# peak_kib" (wall clock from bash, peak RSS from GNU time) to $work/NAME.times; `best NAME` prints
# the fastest run's seconds and the largest peak. Needs $work and die().
now() { echo "${EPOCHREALTIME/,/.}"; }
measure() {
    local name="$1"; shift
    local start end
    start="$(now)"
    /usr/bin/time -f '%M' -o "$work/rss" "$@" || die "$name failed: $*"
    end="$(now)"
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }') $(tail -n 1 "$work/rss")" >> "$work/$name.times"
}
best() { sort -n "$work/$1.times" | awk 'NR == 1 { s = $1 } $2 > m { m = $2 } END { print s, m }'; }
# `table UNIT COUNT REFERENCE`: a line per tool in $tools: its best seconds, COUNT UNIT per second,
# its peak MiB and its time over REFERENCE's.
table() {
    local unit="$1" count="$2" reference="$3" tool s kib reference_s
    read -r reference_s _ < <(best "$reference")
    printf '%-16s %9s %12s %9s %12s\n' tool seconds "$unit/s" "peak MiB" "vs $reference"
    for tool in $tools; do
        read -r s kib < <(best "$tool")
        printf '%-16s %9.3f %12.0f %9.1f %11.2fx\n' "$tool" "$s" "$(awk -v n="$count" -v s="$s" 'BEGIN { print n / s }')" \
            "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')" "$(awk -v a="$s" -v b="$reference_s" 'BEGIN { print a / b }')"
    done
}
# `rounds EXT`: $runs rounds of every tool in $tools, interleaved so that background load hits
# every tool alike, each run by the script's `run_tool TOOL` writing $work/TOOL.EXT; after the
# first round every output must be byte-identical to the first tool's.
rounds() {
    local ext="$1" round tool first
    for tool in $tools; do : > "$work/$tool.times"; done
    for round in $(seq 1 "$runs"); do
        for tool in $tools; do
            echo "round $round/$runs: $tool" >&2
            run_tool "$tool"
        done
        if [ "$round" = 1 ]; then
            first="${tools%% *}"
            for tool in $tools; do
                cmp "$work/$first.$ext" "$work/$tool.$ext" || die "$tool's output differs from $first's (KEEP=1 keeps $work)"
            done
            echo "outputs byte-identical: $tools ($(wc -c < "$work/$first.$ext") bytes)" >&2
        fi
    done
}
