#!/usr/bin/env bash
# Every test suite has a time limit, so that a test that hangs fails after minutes instead of
# holding CI for its whole budget: each Swift file with a @Test either says `.timeLimit` (on its
# top-level @Suite) or only extends a suite declared elsewhere. Prints the files that do neither.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=0
for file in $(grep -rl --include='*.swift' '@Test' Tests Plugins/*/Tests); do
    grep -q 'timeLimit' "$file" && continue
    grep -qE '^(struct|final class|class) ' "$file" || continue # an extension of a suite declared elsewhere
    echo "$file: a suite without a time limit; add @Suite(.timeLimit(.minutes(10)))" >&2
    missing=1
done
[ "$missing" -eq 0 ] && echo "every test suite has a time limit"
exit "$missing"
