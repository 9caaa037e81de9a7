# Sourced by the benchmark scripts once they set $root and $default_n: die(); N (the script's first
# argument, else $N, else $default_n) and RUNS (else 3) as positive whole numbers in $n and $runs;
# the reform binary in $reform (reform-binary.sh); and GNU time, which measures peak memory.
die() { echo "run.sh: error: $*" >&2; exit 1; }
n="${1:-${N:-$default_n}}"
runs="${RUNS:-3}"
case "$n$runs" in *[!0-9]*|'') die "N and RUNS must be whole numbers" ;; esac
[ "$n" -gt 0 ] && [ "$runs" -gt 0 ] || die "N and RUNS must be positive"

source "$root/Benchmarks/reform-binary.sh"
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is needed for peak memory"
