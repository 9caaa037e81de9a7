#!/usr/bin/env bash
# Fault injection for outputs (reliability audit, "widen the net"): a large multi-output batch run
# is killed with SIGKILL, SIGINT, SIGTERM or SIGHUP at random moments, and run against a full
# tmpfs and a read-only folder. After each: every output is either the old file or the complete
# new one, the dead-letter file holds only whole lines, and after the next run no temporary file
# is left. Then the concurrency trial (audit round 2, H3): two and three incremental runs at once
# on one pipeline, state and output (a cron job that overlaps itself), started at random offsets
# while the loopback server's GitHub-like API grows, with and without --wait-lock; after the
# API changes again and a last run, the output holds every issue's last version, no line twice
# and no torn line. Prints one
# line per trial and a summary; exits 1 if any check failed.
#
#   scripts/fault-injection.sh [TRIALS] [RECORDS] [CONCURRENCY_TRIALS]
#                                  (default 24 trials over 300,000 records, 6 concurrency trials)
#
# Uses the debug binary unless REFORM is set; the tmpfs cases need root (they are skipped
# otherwise).
set -uo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-24}
RECORDS=${2:-300000}
CONCURRENCY_TRIALS=${3:-6}
REFORM=$(realpath "${REFORM:-.build/debug/reform}")
[ -x "$REFORM" ] || { echo "build first: swift build" >&2; exit 2; }
WORK=$(mktemp -d)
SERVER_PID=
trap 'umount "$WORK/full" 2>/dev/null; [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT

python3 - "$WORK/in.ndjson" "$RECORDS" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    for i in range(1, n + 1):
        if i % 997 == 0:
            f.write("not json %d\n" % i)          # a dead letter now and then
        else:
            f.write(json.dumps({"id": i, "name": "name %d" % i, "title": "t" * (i % 40), "imageUrl": "u%d" % i}) + "\n")
PY
cat > "$WORK/p.yaml" <<'YAML'
reform: 1
managers: { zufang: {} }
reformers:
  list: { keys: { id: kID, name: kName, title: kTitle }, from: { zufang: { id: id, name: name, title: title } } }
runs:
  default:
    outputs:
      - { reform: [list], format: ndjson, path: out/a.ndjson }
      - { reform: [list], format: csv, path: out/b.csv }
      - { reform: [list], format: ndjson, path: out/c.ndjson }
YAML

failures=0
run() { (cd "$WORK" && "$REFORM" run p.yaml --input zufang=in.ndjson --dead-letter out/dead.ndjson --quiet "$@"); }
# The complete outputs, for comparison.
started=$(date +%s.%N)
run >/dev/null 2>&1
took=$(python3 -c "print($(date +%s.%N) - $started)")
[ -s "$WORK/out/a.ndjson" ] && [ -s "$WORK/out/dead.ndjson" ] || { echo "the reference run failed" >&2; exit 2; }
mkdir -p "$WORK/good" && cp "$WORK"/out/* "$WORK/good/"
good_dead=$(wc -l < "$WORK/good/dead.ndjson")

check() {  # $1: trial name
    local ok=1 name
    for name in a.ndjson b.csv c.ndjson; do
        if ! cmp -s "$WORK/out/$name" "$WORK/old/$name" && ! cmp -s "$WORK/out/$name" "$WORK/good/$name"; then
            echo "  $1: out/$name is neither the old file nor the complete new one"; ok=0
        fi
    done
    # All outputs or none: the three are all old or all new.
    local new=0
    for name in a.ndjson b.csv c.ndjson; do cmp -s "$WORK/out/$name" "$WORK/good/$name" && new=$((new + 1)); done
    if [ "$new" != 0 ] && [ "$new" != 3 ]; then echo "  $1: $new of 3 outputs replaced"; ok=0; fi
    if [ -e "$WORK/out/dead.ndjson" ] && [ -n "$(tail -c1 "$WORK/out/dead.ndjson")" ]; then
        echo "  $1: the dead-letter file ends in a partial line"; ok=0
    fi
    if [ -e "$WORK/out/dead.ndjson" ] && ! python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$WORK/out/dead.ndjson"; then
        echo "  $1: the dead-letter file holds a line that is not JSON"; ok=0
    fi
    [ $ok = 1 ] || failures=$((failures + 1))
    echo "$1: $([ $ok = 1 ] && echo ok || echo FAILED) (outputs $([ $new = 3 ] && echo new || echo old), $( (wc -l < "$WORK/out/dead.ndjson") 2>/dev/null || echo 0)/$good_dead dead letters)"
}

signals=(KILL INT TERM HUP)
for trial in $(seq 1 "$TRIALS"); do
    rm -rf "$WORK/out" "$WORK/old"; mkdir -p "$WORK/out" "$WORK/old"
    for name in a.ndjson b.csv c.ndjson; do echo "old $name $trial" > "$WORK/out/$name"; cp "$WORK/out/$name" "$WORK/old/"; done
    signal=${signals[$((trial % 4))]}
    # Anywhere from the start to past the end of a whole run, so some signals land during the commit.
    delay=$(python3 -c "import random; print(round(random.uniform(0.05, $took * 1.1), 2))")
    (cd "$WORK" && exec "$REFORM" run p.yaml --input zufang=in.ndjson --dead-letter out/dead.ndjson --quiet >/dev/null 2>&1) &
    pid=$!
    sleep "$delay"; kill -s "$signal" "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    check "trial $trial: SIG$signal after ${delay}s"
    # The next run leaves no temporary file behind, whatever the killed one left.
    run >/dev/null 2>&1
    left=$(ls -A "$WORK/out" | grep '\.reform-' | grep -vc '\.reform-lock$' || true)
    if [ "$left" != 0 ]; then echo "  trial $trial: $left temporary files left after the next run"; failures=$((failures + 1)); fi
done

# A read-only folder: the run fails, the old outputs stay.
rm -rf "$WORK/out" "$WORK/old"; mkdir -p "$WORK/out" "$WORK/old"
for name in a.ndjson b.csv c.ndjson; do echo "old $name" > "$WORK/out/$name"; cp "$WORK/out/$name" "$WORK/old/"; done
chmod 555 "$WORK/out"
if [ "$(id -u)" = 0 ]; then
    echo "read-only folder: skipped (root writes anyway)"
else
    run >/dev/null 2>&1; status=$?
    [ $status = 1 ] || { echo "  read-only: exit $status, expected 1"; failures=$((failures + 1)); }
    check "read-only folder"
fi
chmod 755 "$WORK/out"

# A full disk: a 2 MB tmpfs cannot hold the outputs; the run fails and the old outputs stay.
if [ "$(id -u)" = 0 ] && mkdir -p "$WORK/full" && mount -t tmpfs -o size=2m tmpfs "$WORK/full" 2>/dev/null; then
    mkdir -p "$WORK/full/out"
    for name in a.ndjson b.csv c.ndjson; do echo "old $name" > "$WORK/full/out/$name"; done
    rm -rf "$WORK/old" && cp -r "$WORK/full/out" "$WORK/old"
    cp "$WORK/p.yaml" "$WORK/in.ndjson" "$WORK/full/" 2>/dev/null || ln -sf "$WORK/in.ndjson" "$WORK/full/in.ndjson"
    cp "$WORK/p.yaml" "$WORK/full/p.yaml"
    (cd "$WORK/full" && "$REFORM" run p.yaml --input zufang="$WORK/in.ndjson" --dead-letter out/dead.ndjson --quiet >/dev/null 2>&1); status=$?
    [ $status = 1 ] || { echo "  full disk: exit $status, expected 1"; failures=$((failures + 1)); }
    rm -rf "$WORK/out" && cp -r "$WORK/full/out" "$WORK/out"
    check "full tmpfs"
    left=$(ls -A "$WORK/full/out" | grep '\.reform-' | grep -vc '\.reform-lock$' || true)
    [ "$left" = 0 ] || { echo "  full disk: $left temporary files left"; failures=$((failures + 1)); }
    umount "$WORK/full"
else
    echo "full tmpfs: skipped (needs root and tmpfs)"
fi

# The concurrency trial: runs at once on one incremental pipeline against the loopback server.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 Tests/Server/reform_test_server.py --port "$PORT" >/dev/null 2>&1 &
SERVER_PID=$!
H="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do python3 -c "import urllib.request; urllib.request.urlopen('$H/_log?summary=1')" 2>/dev/null && break; sleep 0.1; done
post() { python3 -c "import sys, urllib.request; urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), headers={'Content-Type': 'application/json'}, method='POST'))" "$H$1" "$2"; }
mkdir -p "$WORK/conc"
cat > "$WORK/conc/inc.yaml" <<YAML
reform: 1
name: conc
services:
  github: { base_url: "$H/gh", retry: { attempts: 3, backoff: exponential, base: 200ms, max: 5s } }
managers:
  issues:
    service: github
    path: /repos/{owner}/{repo}/issues
    params: { owner: acme, repo: { required: true }, state: all, sort: updated, direction: asc, per_page: 5 }
    paging: { policy: link }
    for_each: { param: repo, values: [widgets, gadgets], concurrency: 2 }
    incremental: { cursor: updated_at, param: since, format: iso8601, lookback: 10m, key: id, checkpoint: 2 }
reformers:
  issue:
    keys: { repo: kRepo, number: kNumber, updated: kUpdated }
    from:
      issues: { repo: _partition.repo, number: number, updated: updated_at }
runs:
  default: { managers: [issues], reform: [issue], output: { format: ndjson, path: out/issues.ndjson } }
YAML
concurrency_failures=0
for trial in $(seq 1 "$CONCURRENCY_TRIALS"); do
    runs=$((2 + trial % 2))                                   # two, then three runs at once
    wait_flag=$([ $((trial % 4)) -lt 2 ] && echo --wait-lock || echo "")
    dir="$WORK/conc/t$trial" && mkdir -p "$dir" && cp "$WORK/conc/inc.yaml" "$dir/"
    post /_reset '' && post /gh/_admin/config '{"delay_ms": 0, "issues_per_repo": 60}'
    (cd "$dir" && "$REFORM" run inc.yaml --live --quiet) || { echo "  concurrency $trial: the first run failed"; concurrency_failures=$((concurrency_failures + 1)); continue; }
    post /gh/_admin/advance '{"touch": 20, "add": 10}' && post /gh/_admin/config '{"delay_ms": 150}'
    pids=()
    for r in $(seq 1 "$runs"); do
        (cd "$dir" && exec "$REFORM" run inc.yaml --live --quiet $wait_flag >"$dir/run$r.out" 2>&1) &
        pids+=($!)
        sleep "$(python3 -c 'import random; print(round(random.uniform(0.05, 0.4), 2))')"
        # New issues while the runs page, so each run sees other data. (Only additions: a change
        # of an issue in the middle of a page-numbered listing shifts its pages, and any client
        # can skip a record then; see docs/hardening.md.)
        post /gh/_admin/advance '{"touch": 0, "add": 3}'
    done
    statuses=""
    for pid in "${pids[@]}"; do wait "$pid"; statuses="$statuses $?"; done
    post /gh/_admin/config '{"delay_ms": 0}' && post /gh/_admin/advance '{"touch": 5, "add": 3}'
    (cd "$dir" && "$REFORM" run inc.yaml --live --quiet)            # a last run after the overlap
    # The reference: everything the server has now, fetched in full into another folder.
    mkdir -p "$dir/ref" && cp "$dir/inc.yaml" "$dir/ref/" && (cd "$dir/ref" && "$REFORM" run inc.yaml --live --quiet --full-refresh)
    verdict=$(python3 - "$dir/out/issues.ndjson" "$dir/ref/out/issues.ndjson" "$wait_flag" $statuses <<'PY'
import json, sys
out, ref, waited, statuses = sys.argv[1], sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4:]]
problems, last, seen, lines = [], {}, set(), 0
for raw in open(out, "rb"):
    lines += 1
    try:
        r = json.loads(raw)
    except Exception:
        problems.append("a torn line: %r" % raw[:60]); continue
    k = (r["kRepo"], r["kNumber"], r["kUpdated"])
    if k in seen: problems.append("written twice: %s" % (k,))
    seen.add(k); last[k[:2]] = k[2]
want = {}
for raw in open(ref, "rb"):
    r = json.loads(raw); want[(r["kRepo"], r["kNumber"])] = r["kUpdated"]
lost = [k for k in want if last.get(k) != want[k]]
if lost: problems.append("%d issues not at their last version, e.g. %s" % (len(lost), lost[0]))
if waited and any(statuses): problems.append("with --wait-lock a run exited %s" % statuses)
if not waited and (statuses.count(0) < 1 or any(s not in (0, 1) for s in statuses)): problems.append("exits %s" % statuses)
print("ok" if not problems else "; ".join(problems[:3]), "(%d lines, %d issues, exits %s)" % (lines, len(want), statuses))
PY
)
    if [ "${verdict%% *}" != ok ]; then concurrency_failures=$((concurrency_failures + 1)); fi
    echo "concurrency trial $trial: $runs runs at once ${wait_flag:-without --wait-lock}: $verdict"
    if [ -z "$wait_flag" ] && ! grep -qs "another run (pid" "$dir"/run*.out && [ "$(echo $statuses | tr -d ' 0')" != "" ]; then
        echo "  a refused run did not name the other run's pid"; concurrency_failures=$((concurrency_failures + 1))
    fi
done
failures=$((failures + concurrency_failures))

echo "$((TRIALS + 2 + CONCURRENCY_TRIALS - failures)) passed, $failures failed"
[ "$failures" = 0 ]
