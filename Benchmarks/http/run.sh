#!/usr/bin/env bash
# HTTP benchmark: fetch PAGES small pages from the loopback test server (Tests/Server) through a
# paged Reform manager (Benchmarks/http/bench.yaml, --live), against the same requests made by one
# `curl` process given every URL (one keep-alive connection) and by Python `requests` with a Session.
# Target: Reform's time within 1.2x of curl's, and ahead of Python's (mins over the runs).
#
#   Benchmarks/http/run.sh
#   PAGES=200 RUNS=3 Benchmarks/http/run.sh
#
# Environment:
#   PAGES=1000      pages per run (one request each)
#   PER_PAGE=10     items per page
#   RUNS=5          timed runs; the tools take turns within each run (the order rotates per run)
#   WARMUP=1        untimed rounds of every tool first
#   REFORM_BIN=...  the reform binary (default .build/release/reform); skipped with a message
#                   when it is missing or not executable
#   TOOLS="curl python reform"   which tools to run; `reform-ahc` is reform with
#                   --http-client async-http-client (AsyncHTTPClient, SwiftNIO and BoringSSL)
#   TLS=1           over https: a CA and a server certificate made with openssl for this run, the
#                   server started with them, and every tool trusting that CA (curl --cacert,
#                   REQUESTS_CA_BUNDLE, SSL_CERT_FILE for reform, whose https goes through
#                   its built-in client over the system OpenSSL)
#   MODE=graphql    POST the test server's GraphQL issues query instead (Benchmarks/http/graphql.yaml
#                   against graphql_client.py: the cursor from pageInfo into the variables); curl,
#                   which cannot follow a cursor in a body, is left out; PER_PAGE at most 100
#   PYTHON=...      the Python interpreter (default: python3's real executable, not a pyenv shim)
#   TIMER=python    time with measure.py (getrusage) even if GNU time is installed
#   STRICT=1        exit 1 (after printing everything) when a target is missed
#   KEEP=1          keep the temp folder with the outputs (its path is printed)
#
# Exits 1 if a tool fails, the tools fetched different items, or a tool made the wrong number of
# requests (or curl used more than one connection).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

usage() { sed -n '2,24p' "$here/run.sh" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    '') ;;
    *) echo "run.sh: unknown argument '$1' (settings are environment variables)" >&2; usage >&2; exit 2 ;;
esac

PAGES="${PAGES:-1000}"
PER_PAGE="${PER_PAGE:-10}"
RUNS="${RUNS:-5}"
WARMUP="${WARMUP:-1}"
REFORM_BIN="${REFORM_BIN:-.build/release/reform}"
MODE="${MODE:-rest}"
case "$MODE" in
    rest) TOOLS="${TOOLS:-curl python reform}" ;;
    graphql) TOOLS="${TOOLS:-python reform}" ;;
    *) echo "run.sh: MODE is rest or graphql, not '$MODE'" >&2; exit 2 ;;
esac
[ "$MODE" = rest ] || [[ " $TOOLS " != *" curl "* ]] || { echo "run.sh: curl cannot follow a GraphQL cursor (MODE=graphql)" >&2; exit 2; }
case "$PAGES$PER_PAGE$RUNS$WARMUP" in *[!0-9]*) echo "run.sh: PAGES, PER_PAGE, RUNS and WARMUP must be whole numbers" >&2; exit 2 ;; esac
[ "$PAGES" -gt 0 ] && [ "$PER_PAGE" -gt 0 ] && [ "$PER_PAGE" -le 1000 ] && [ "$RUNS" -gt 0 ] \
    || { echo "run.sh: PAGES and RUNS must be positive, PER_PAGE in 1...1000" >&2; exit 2; }

die() { echo "run.sh: error: $*" >&2; exit 1; }

# The interpreter itself, not a launcher such as a pyenv shim (~60 ms per start on a shim).
command -v python3 >/dev/null || die "python3 is not installed"
PYTHON="${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}"

# Loopback only: never through a proxy.
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy="127.0.0.1,localhost" NO_PROXY="127.0.0.1,localhost"

# ---------------------------------------------------------------- tools
tools=()
for tool in $TOOLS; do
    case "$tool" in
        curl) command -v curl >/dev/null || die "curl is not installed"; tools+=(curl) ;;
        python) "$PYTHON" -c 'import requests' 2>/dev/null || die "python3 cannot import requests (pip install requests)"; tools+=(python) ;;
        reform|reform-ahc)
            if [ -x "$REFORM_BIN" ] && [ -f "$REFORM_BIN" ]; then
                tools+=("$tool")
            else
                echo "run.sh: skipping reform: no executable at '$REFORM_BIN'" \
                    "(build it with 'swift build -c release --product reform', or set REFORM_BIN)" >&2
            fi ;;
        *) die "unknown tool '$tool' in TOOLS (curl, python, reform, reform-ahc)" ;;
    esac
done
[ "${#tools[@]}" -gt 0 ] || die "no tools to run"

timer=gnu
if [ "${TIMER:-}" = python ] || ! [ -x /usr/bin/time ] || ! /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
    timer=python
fi

# ---------------------------------------------------------------- server
tmp="$(mktemp -d "${TMPDIR:-/tmp}/reform-http-bench.XXXXXX")"
source "$root/Benchmarks/test-server.sh"
cleanup() {
    stop_test_server
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

scheme=http
server_tls=()
if [ "${TLS:-0}" = 1 ]; then
    command -v openssl >/dev/null || die "TLS=1 needs openssl"
    key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${key[@]}" -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 30 -subj "/CN=Reform Bench CA" 2>/dev/null
    openssl req "${key[@]}" -keyout "$tmp/server.key" -out "$tmp/server.csr" -subj "/CN=reform-bench" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$tmp/server.ext"
    openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial \
        -out "$tmp/server.pem" -days 30 -extfile "$tmp/server.ext" 2>/dev/null
    scheme=https
    server_tls=(--tls-cert "$tmp/server.pem" --tls-key "$tmp/server.key")
    export REQUESTS_CA_BUNDLE="$tmp/ca.pem" SSL_CERT_FILE="$tmp/ca.pem"
fi
export REFORM_BENCH_SCHEME="$scheme"
start_test_server "$tmp" "${server_tls[@]}"
export REFORM_BENCH_PORT="$port"
base="$scheme://127.0.0.1:$port"

urls=()
for ((i = 1; i <= PAGES; i++)); do urls+=("$base/bench?page=$i&per_page=$PER_PAGE&pages=$PAGES"); done

clk_tck="$(getconf CLK_TCK 2>/dev/null || echo 100)"
server_cpu_ticks() { awk '{print $14 + $15}' "/proc/$server_pid/stat" 2>/dev/null || echo 0; }
micros() { local t="${1//[.,]/}"; echo $((10#$t)); }

# ---------------------------------------------------------------- one measured run of one tool
results="$tmp/results.tsv"
: >"$results"

# run_tool TOOL LABEL: runs it once, appends a line to $results unless LABEL is "warmup".
run_tool() {
    local tool="$1" label="$2" stdout="/dev/null" kind=ndjson output
    local -a cmd
    case "$tool" in
        curl)
            output="$tmp/curl.pages"; stdout="$output"; kind=pages
            cmd=(curl -s -S -w '\n' "${urls[@]}")
            [ "$scheme" = https ] && cmd=(curl --cacert "$tmp/ca.pem" -s -S -w '\n' "${urls[@]}") ;;
        python)
            output="$tmp/python.ndjson"
            if [ "$MODE" = graphql ]; then
                cmd=("$PYTHON" "$here/graphql_client.py" "$port" "$PAGES" "$PER_PAGE" "$output")
            else
                cmd=("$PYTHON" "$here/requests_client.py" "$port" "$PAGES" "$PER_PAGE" "$output")
            fi ;;
        reform|reform-ahc)
            output="$tmp/$tool.ndjson"
            if [ "$MODE" = graphql ]; then
                cmd=("$REFORM_BIN" run Benchmarks/http/graphql.yaml --live --quiet --output "$output"
                    --param "per_page=$PER_PAGE" --param "total=$((PAGES * PER_PAGE))")
            else
                cmd=("$REFORM_BIN" run Benchmarks/http/bench.yaml --live --quiet --output "$output"
                    --param "per_page=$PER_PAGE" --param "pages=$PAGES")
            fi
            if [ "$tool" = reform-ahc ]; then cmd+=(--http-client async-http-client); fi ;;
    esac
    rm -f "$output"
    curl -s --cacert "${SSL_CERT_FILE:-/dev/null}" -X POST "$base/_reset" >/dev/null || die "cannot reach the test server"
    local cpu0 cpu1 status=0 wall rss
    cpu0="$(server_cpu_ticks)"
    if [ "$timer" = gnu ]; then
        local t0 t1
        t0=$EPOCHREALTIME
        /usr/bin/time -f %M -o "$tmp/rss" "${cmd[@]}" >"$stdout" 2>"$tmp/$tool.err" || status=$?
        t1=$EPOCHREALTIME
        wall="$(awk -v us=$(($(micros "$t1") - $(micros "$t0"))) 'BEGIN { printf "%.6f", us / 1e6 }')"
        rss="$(tail -n 1 "$tmp/rss")"
    else
        "$PYTHON" "$here/measure.py" "$tmp/measure" -- "${cmd[@]}" >"$stdout" 2>"$tmp/$tool.err" || status=$?
        read -r wall rss <"$tmp/measure"
    fi
    cpu1="$(server_cpu_ticks)"
    if [ "$status" != 0 ]; then
        cat "$tmp/$tool.err" >&2
        die "$tool failed (exit status $status)"
    fi
    local summary requests connections count idsum server
    summary="$(curl -s --cacert "${SSL_CERT_FILE:-/dev/null}" "$base/_log?summary=1")"
    requests="$(sed -E 's/.*"requests": ([0-9]+).*/\1/' <<<"$summary")"
    connections="$(sed -E 's/.*"connections": ([0-9]+).*/\1/' <<<"$summary")"
    read -r count idsum < <("$PYTHON" "$here/count_items.py" "$kind" "$output")
    server="$(awk -v t=$((cpu1 - cpu0)) -v hz="$clk_tck" 'BEGIN { printf "%.3f", t / hz }')"
    if [ "$tool" = curl ] && [ "$connections" != 1 ]; then
        echo "run.sh: warning: curl used $connections connections (expected 1)" >&2
    fi
    if [ "$label" != warmup ]; then
        echo "$tool $label $wall $rss $count $idsum $requests $connections $server" >>"$results"
        printf '  %-7s %8.1f ms  %5d requests  %d connection(s)  %6d items  %6.1f MB peak RSS\n' \
            "$tool" "$(awk -v w="$wall" 'BEGIN { print w * 1000 }')" "$requests" "$connections" "$count" \
            "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')"
    fi
}

endpoint="$base/bench"
[ "$MODE" = graphql ] && endpoint="$base/graphql (POST)"
echo "HTTP benchmark ($MODE): $PAGES pages x $PER_PAGE items from $endpoint, $RUNS runs (+$WARMUP warm-up), timer: $timer"
echo "tools: ${tools[*]}"
for ((w = 1; w <= WARMUP; w++)); do
    for tool in "${tools[@]}"; do run_tool "$tool" warmup; done
done
n="${#tools[@]}"
for ((r = 1; r <= RUNS; r++)); do
    echo "run $r/$RUNS"
    for ((k = 0; k < n; k++)); do
        run_tool "${tools[$(((k + r - 1) % n))]}" "$r"
    done
done

echo
status=0
"$PYTHON" "$here/report.py" "$results" "$PAGES" || status=$?
case "$status" in
    0) ;;
    3) [ "${STRICT:-0}" = 1 ] && exit 1 ;;
    *) exit 1 ;;
esac
exit 0
