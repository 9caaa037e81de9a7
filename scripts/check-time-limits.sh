#!/usr/bin/env bash
# Every test suite has a time limit, so that a test that hangs fails after minutes instead of
# holding CI for its whole budget: each Swift file with a @Test either says `.timeLimit` (on its
# top-level @Suite) or only extends a suite declared elsewhere. Prints the files that do neither.
#
# And no test waits for a child program on the concurrency pool (two threads here: a blocked one
# starves the tests beside it, the suite hung so in stop 51): a `waitUntilExit()` in Tests/ sits in a
# function whose name ends in `Blocking` (called through `offPool`) or inside an `offPool {` closure;
# anything else runs its program with `runToEnd` (ReformTestSupport).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=0
for file in $(grep -rl --include='*.swift' '@Test' Tests Plugins/*/Tests); do
    grep -q 'timeLimit' "$file" && continue
    grep -qE '^(struct|final class|class) ' "$file" || continue # an extension of a suite declared elsewhere
    echo "$file: a suite without a time limit; add @Suite(.timeLimit(.minutes(10)))" >&2
    missing=1
done
python3 - <<'PY' || missing=1
import pathlib, re, sys
bad = []
for path in sorted(pathlib.Path("Tests").rglob("*.swift")):
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines):
        if "waitUntilExit()" not in line or line.strip().startswith("//"):
            continue
        ok = False
        for above in reversed(lines[:number]):
            if "offPool {" in above:
                ok = True
                break
            declared = re.search(r"\bfunc (\w+)", above)
            if declared:
                ok = declared.group(1).endswith("Blocking")
                break
        if not ok:
            bad.append(f"{path}:{number + 1}: waitUntilExit() on the concurrency pool; run the program with runToEnd(_:) instead")
for message in bad:
    print(message, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
[ "$missing" -eq 0 ] && echo "every test suite has a time limit, and no test waits for a program on the concurrency pool"
exit "$missing"
