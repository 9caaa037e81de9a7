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
