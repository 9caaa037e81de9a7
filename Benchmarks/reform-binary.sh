# Sourced by the benchmark scripts: sets $reform to $REFORM_BIN, or builds a release reform in the
# scratch path .build-bench (so benchmarks never disturb a debug build). Needs $root and die().
if [ -n "${REFORM_BIN:-}" ]; then
    reform="$REFORM_BIN"
else
    echo "building reform (release, scratch path .build-bench)..." >&2
    (cd "$root" && swift build -c release --scratch-path .build-bench --product reform >&2)
    reform="$(cd "$root" && swift build -c release --scratch-path .build-bench --show-bin-path)/reform"
fi
[ -x "$reform" ] || die "no reform binary at $reform"
