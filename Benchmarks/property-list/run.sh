#!/usr/bin/env bash
# Property-list batch benchmark: `reform run Pipelines/property-list.yaml --format ndjson` against
# the same transform in jq, in Python + orjson and (when python3 can import duckdb) in DuckDB with
# 1 and 2 threads, on generated NDJSON inputs.
#
#   Benchmarks/property-list/run.sh [N]          # speed: N records per manager (default 100000)
#   Benchmarks/property-list/run.sh --memory     # memory: reform alone at 100k and 1M per manager
#
# Speed mode also runs reform with --jobs 2 (same bytes out) and reports its speed-up over
# --jobs 1; memory mode measures --jobs 1 and --jobs 2 at each size.
#
# Environment:
#   N=...          records per manager (same as the argument)
#   RUNS=3         runs per tool; the best wall time is reported, and the highest peak RSS
#   MEMORY=1       same as --memory; MEMORY_SIZES="100000 1000000" overrides the sizes
#   REFORM_BIN=... use this reform binary instead of building one (skips `swift build`)
#   SEED=4         generator seed
#   TIMER=python   measure with the Python getrusage wrapper even if GNU time is installed
#   STRICT=1       exit 1 (after printing everything) when a target is missed
#   KEEP=1         keep the temp folder with inputs and outputs (its path is printed)
#   TMPDIR=...     where the temp folder goes (needs ~2 KiB per record; ~6 GB for --memory)
#
# Exits 1 if the outputs of the tools are not byte-identical, or a tool fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pipeline="$root/Pipelines/property-list.yaml"

usage() { sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

n="${N:-100000}"
memory="${MEMORY:-0}"
while [ $# -gt 0 ]; do
    case "$1" in
        --memory) memory=1 ;;
        -h|--help) usage; exit 0 ;;
        ''|*[!0-9]*) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
        *) n="$1" ;;
    esac
    shift
done
runs="${RUNS:-3}"
seed="${SEED:-4}"
[ "$memory" = 0 ] || [ "$memory" = 1 ] || { echo "run.sh: MEMORY must be 0 or 1" >&2; exit 2; }
case "$n$runs" in *[!0-9]*) echo "run.sh: N and RUNS must be whole numbers" >&2; exit 2 ;; esac
[ "$n" -gt 0 ] && [ "$runs" -gt 0 ] || { echo "run.sh: N and RUNS must be positive" >&2; exit 2; }

die() { echo "run.sh: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------- tools
source "$root/Benchmarks/reform-binary.sh"
if [ "$memory" = 0 ]; then
    command -v jq >/dev/null || die "jq is not installed"
    python3 -c 'import orjson' 2>/dev/null || die "python3 cannot import orjson (pip install orjson)"
fi

# ---------------------------------------------------------------- measuring
# measure NAME CMD...: runs CMD, appends "seconds peak_kib" to $work/NAME.times. Peak RSS is the
# largest of the command's process tree (wait4/getrusage report the max over waited-for children).
# GNU time's measure, now and best are Benchmarks/measure.sh's; without GNU time (or with
# TIMER=python) measure is redefined below to time with Python.
source "$root/Benchmarks/measure.sh"
if [ "${TIMER:-}" != python ] && [ -x /usr/bin/time ] && /usr/bin/time -f '%M' -o /dev/null true 2>/dev/null; then
    timer="GNU time (peak RSS) + bash clock (wall)"
else
    timer="Python perf_counter + getrusage(RUSAGE_CHILDREN)"
    # A child forked from Python inherits the interpreter's RSS as its high-water mark until exec,
    # so peaks below the interpreter's own size (printed as the floor) mean "at most the floor".
    measure() {
        local name="$1"; shift
        python3 - "$@" >> "$work/$name.times" <<'EOF' || die "$name failed: $*"
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.call(sys.argv[1:])
seconds = time.perf_counter() - start
if code != 0:
    sys.exit(code)
print("%.4f %d" % (seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))  # KiB on Linux
EOF
    }
fi
if [ "${TIMER:-}" = python ] || [[ "$timer" == Python* ]]; then
    floor_kib=$(python3 -c 'import resource, subprocess; subprocess.call(["true"]); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)')
    timer="$timer, peak floor $((floor_kib / 1024)) MiB"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/reform-property-list.XXXXXX")"
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

generate() {  # generate N DIR
    mkdir -p "$2"
    echo "generating $1 records per manager in $2..." >&2
    python3 "$here/generate.py" "$1" "$2" "$seed"
}

reform_cmd() {  # reform_cmd DIR OUT [JOBS]: sets the array $cmd to the reform command line
    cmd=("$reform" run "$pipeline" --format ndjson --output "$2" --quiet --jobs "${3:-1}"
        --input zufang="$1/zufang.ndjson" --input xinfang="$1/xinfang.ndjson" --input ershoufang="$1/ershoufang.ndjson")
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
missed=0

# ---------------------------------------------------------------- memory mode
if [ "$memory" = 1 ]; then
    sizes="${MEMORY_SIZES:-100000 1000000}"
    echo "reform peak memory, property-list batch ($timer)"
    printf '%-22s %5s %10s %10s %12s\n' "records per manager" "jobs" "seconds" "peak MiB" "records/s"
    first_kib=""
    last_kib=0
    for size in $sizes; do
        generate "$size" "$work/in"
        for jobs in 1 2; do
            : > "$work/reform-$size-$jobs.times"
            reform_cmd "$work/in" "$work/reform.out" "$jobs"
            measure "reform-$size-$jobs" "${cmd[@]}"
            lines=$(wc -l < "$work/reform.out")
            [ "$lines" -eq $((3 * size)) ] || die "reform wrote $lines records, expected $((3 * size))"
            read -r seconds kib < <(best "reform-$size-$jobs")
            printf '%-22s %5s %10.2f %10s %12.0f\n' "$size" "$jobs" "$seconds" "$(mib "$kib")" \
                "$(awk -v n=$((3 * size)) -v s="$seconds" 'BEGIN { print n / s }')"
            [ "$jobs" = 1 ] && first_kib="${first_kib:-$kib}"
            [ "$kib" -gt "$last_kib" ] && last_kib="$kib"
        done
        rm -rf "$work/in" "$work/reform.out"
    done
    limit_kib=$((64 * 1024))
    growth=$(awk -v a="$first_kib" -v b="$last_kib" 'BEGIN { printf "%.2f", b / a }')
    echo
    echo "largest peak over the smallest --jobs 1 peak: ${growth}x (flat is ~1.0x; --jobs 2 holds a few batches more)"
    if [ "$last_kib" -le "$limit_kib" ]; then
        echo "target (<= 64 MiB at the largest size): met ($(mib "$last_kib") MiB)"
    else
        echo "target (<= 64 MiB at the largest size): MISSED ($(mib "$last_kib") MiB)"
        missed=1
    fi
    if [ "${STRICT:-0}" = 1 ] && [ "$missed" = 1 ]; then exit 1; fi
    exit 0
fi

# ---------------------------------------------------------------- speed mode
generate "$n" "$work/in"
in="$work/in"
records=$((3 * n))

jq_filter() {  # jq_filter PREFIX
    printf '{kPropertyListDataKeyID: .%sid, kPropertyListDataKeyName: .%sname, kPropertyListDataKeyTitle: .%stitle, kPropertyListDataKeyImage: .%simageUrl}' "$1" "$1" "$1" "$1"
}
run_jq() {  # one jq per file, concatenated in manager order
    {
        jq -c "$(jq_filter '')" "$in/zufang.ndjson"
        jq -c "$(jq_filter xinfang_)" "$in/xinfang.ndjson"
        jq -c "$(jq_filter esf_)" "$in/ershoufang.ndjson"
    } > "$1"
}
run_python() {
    python3 "$here/transform_orjson.py" "$1" "$in/zufang.ndjson" "$in/xinfang.ndjson" "$in/ershoufang.ndjson"
}
run_duckdb() {  # run_duckdb THREADS OUT
    python3 "$here/transform_duckdb.py" "$1" "$2" "$in/zufang.ndjson" "$in/xinfang.ndjson" "$in/ershoufang.ndjson"
}
export -f run_jq run_python run_duckdb jq_filter
export in here
reform_cmd "$in" "$work/reform-jobs2.out" 2
cmd_jobs2=("${cmd[@]}")
reform_cmd "$in" "$work/reform.out"

tools="reform reform-jobs2 python jq"
duckdb=0
if python3 -c 'import duckdb' 2>/dev/null; then
    duckdb=1
    tools="$tools duckdb1 duckdb2"
else
    echo "python3 cannot import duckdb (pip install duckdb): DuckDB is left out" >&2
fi
for tool in $tools; do : > "$work/$tool.times"; done
for round in $(seq 1 "$runs"); do
    for tool in $tools; do  # interleaved, so background load hits every tool alike
        echo "round $round/$runs: $tool" >&2
        case "$tool" in
            reform) measure reform "${cmd[@]}" ;;
            reform-jobs2) measure reform-jobs2 "${cmd_jobs2[@]}" ;;
            python) measure python bash -c 'run_python "$1"' _ "$work/python.out" ;;
            jq) measure jq bash -c 'run_jq "$1"' _ "$work/jq.out" ;;
            duckdb1) measure duckdb1 bash -c 'run_duckdb 1 "$1"' _ "$work/duckdb1.out" ;;
            duckdb2) measure duckdb2 bash -c 'run_duckdb 2 "$1"' _ "$work/duckdb2.out" ;;
        esac
    done
    if [ "$round" = 1 ]; then
        lines=$(wc -l < "$work/jq.out")
        [ "$lines" -eq "$records" ] || die "jq wrote $lines records, expected $records"
        for tool in reform reform-jobs2 python; do
            if ! cmp "$work/jq.out" "$work/$tool.out"; then
                echo "run.sh: FAIL: $tool's output differs from jq -c's (KEEP=1 keeps $work to compare)" >&2
                exit 1
            fi
        done
        echo "outputs byte-identical: reform = reform --jobs 2 = python+orjson = jq -c ($records records, $(wc -c < "$work/jq.out") bytes)" >&2
        if [ "$duckdb" = 1 ]; then
            for tool in duckdb1 duckdb2; do  # DuckDB escapes differently: compared as parsed records
                python3 "$here/same_records.py" "$work/jq.out" "$work/$tool.out" \
                    || { echo "run.sh: FAIL: $tool's records differ from jq -c's (KEEP=1 keeps $work)" >&2; exit 1; }
            done
            echo "DuckDB's records equal jq's as parsed JSON" >&2
        fi
    fi
done

read -r reform_s reform_kib < <(best reform)
read -r jobs2_s jobs2_kib < <(best reform-jobs2)
read -r python_s python_kib < <(best python)
read -r jq_s jq_kib < <(best jq)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo
echo "property-list batch: $n records per manager ($records total, $(cat "$in"/*.ndjson | wc -c | awk '{ printf "%.0f", $1 / 1e6 }') MB of NDJSON), best of $runs"
echo "timer: $timer; $(nproc) cores; outputs byte-identical"
printf '%-16s %9s %12s %9s %12s\n' tool seconds records/s "peak MiB" "vs reform"
row() { printf '%-16s %9.3f %12.0f %9s %11sx\n' "$1" "$2" "$(awk -v n="$records" -v s="$2" 'BEGIN { print n / s }')" "$(mib "$3")" "$(ratio "$2" "$reform_s")"; }
row reform "$reform_s" "$reform_kib"
row "reform --jobs 2" "$jobs2_s" "$jobs2_kib"
row python+orjson "$python_s" "$python_kib"
row "jq -c" "$jq_s" "$jq_kib"
if [ "$duckdb" = 1 ]; then
    read -r duck1_s duck1_kib < <(best duckdb1)
    read -r duck2_s duck2_kib < <(best duckdb2)
    row "duckdb threads=1" "$duck1_s" "$duck1_kib"
    row "duckdb threads=2" "$duck2_s" "$duck2_kib"
fi
echo
speedup=$(ratio "$python_s" "$reform_s")
echo "python/reform: ${speedup}x   jq/reform: $(ratio "$jq_s" "$reform_s")x   jq/python: $(ratio "$jq_s" "$python_s")x"
if [ "$n" -lt 100000 ]; then
    echo "note: N < 100000, start-up costs weigh on these ratios; judge the target at the default size"
fi
if awk -v r="$speedup" 'BEGIN { exit !(r >= 3) }'; then
    echo "target (reform >= 3x faster than python+orjson): met"
else
    echo "target (reform >= 3x faster than python+orjson): MISSED (${speedup}x)"
    missed=1
fi
if [ "$duckdb" = 1 ]; then
    for pair in "1 $duck1_s $reform_s" "2 $duck2_s $jobs2_s"; do
        read -r threads duck_s ours_s <<< "$pair"
        against=$(ratio "$duck_s" "$ours_s")
        if awk -v r="$against" 'BEGIN { exit !(r >= 2) }'; then
            echo "target (reform >= 2x DuckDB at $threads thread(s)): met (${against}x)"
        else
            echo "target (reform >= 2x DuckDB at $threads thread(s)): MISSED (${against}x)"
            missed=1
        fi
    done
fi
parallel=$(ratio "$reform_s" "$jobs2_s")
if awk -v r="$parallel" 'BEGIN { exit !(r >= 1.7) }'; then
    echo "target (--jobs 2 >= 1.7x the --jobs 1 throughput): met (${parallel}x)"
else
    echo "target (--jobs 2 >= 1.7x the --jobs 1 throughput): MISSED (${parallel}x)"
    missed=1
fi
if [ "${STRICT:-0}" = 1 ] && [ "$missed" = 1 ]; then exit 1; fi
