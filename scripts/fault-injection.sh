#!/usr/bin/env bash
# Fault injection for outputs (reliability audit, "widen the net"): a large multi-output batch run
# is killed with SIGKILL, SIGINT, SIGTERM or SIGHUP at random moments, and run against a full
# tmpfs and a read-only folder. After each: every output is either the old file or the complete
# new one, the dead-letter file holds only whole lines, and after the next run no temporary file
# is left. Prints one line per trial and a summary; exits 1 if any check failed.
#
#   scripts/fault-injection.sh [TRIALS] [RECORDS]     (default 24 trials over 300,000 records)
#
# Uses the debug binary unless REFORM is set; the tmpfs cases need root (they are skipped
# otherwise).
set -uo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-24}
RECORDS=${2:-300000}
REFORM=$(realpath "${REFORM:-.build/debug/reform}")
[ -x "$REFORM" ] || { echo "build first: swift build" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'umount "$WORK/full" 2>/dev/null; rm -rf "$WORK"' EXIT

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
    left=$(ls -A "$WORK/out" | grep -c '\.reform-' || true)
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
    left=$(ls -A "$WORK/full/out" | grep -c '\.reform-' || true)
    [ "$left" = 0 ] || { echo "  full disk: $left temporary files left"; failures=$((failures + 1)); }
    umount "$WORK/full"
else
    echo "full tmpfs: skipped (needs root and tmpfs)"
fi

echo "$((TRIALS + 2 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
