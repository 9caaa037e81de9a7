#!/usr/bin/env bash
# Checks the OCI image scripts/make-oci.sh made, with no container engine: unpacks it with umoci
# as a runtime would (its layers into a root filesystem, its config into config.json), then:
# - the config runs /opt/reform/bin/reform as the user `reform` (65532) in /work, --help by default;
# - every file of the image is owned by root and only /tmp and /work are writable by others;
# - in a chroot of that root (so nothing of this machine can be loaded), with its own /proc, as
#   the image's user:
#   `reform --version`, the main job (Pipelines/property-list.yaml) with the same output as the
#   dev build, the RSS example (libxml2), and a PostgreSQL address reached for (libpq loaded: the
#   error is the connection's, not a missing library); as root, the sqlite run and `reform cat`
#   of its table.
# Prints what each step took.
#
#   scripts/check-oci.sh IMAGE [--reference PATH/TO/reform]   # default reference: .build/debug/reform
#
# Needs umoci, unshare and chroot, as root.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."

image=
reference=.build/debug/reform
while [ $# -gt 0 ]; do
    case "$1" in
        --reference) reference=${2:?"--reference needs the dev build's reform"}; shift 2 ;;
        -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) image=$1; shift ;;
    esac
done
case "$image" in "" | /*) ;; *) image=$caller/$image ;; esac
[ -n "$image" ] && [ -f "$image" ] || { echo "check-oci.sh: give the image make-oci.sh printed (got '${image:-nothing}')" >&2; exit 2; }
[ -x "$reference" ] || { echo "check-oci.sh: no dev build at $reference to compare with" >&2; exit 2; }
reference=$(cd "$(dirname "$reference")" && pwd)/$(basename "$reference")
[ "$(id -u)" = 0 ] || { echo "check-oci.sh: needs root (umoci unpack and chroot)" >&2; exit 2; }

fail() { echo "check-oci.sh: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/reform-oci-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
started=$(date +%s.%N)
elapsed() { awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }'; }

step "unpack the image as a runtime would"
mkdir -p "$work/layout"
tar -xf "$image" -C "$work/layout"
tag=$(umoci ls --layout "$work/layout" | head -1)
[ -n "$tag" ] || fail "the image has no tag"
umoci unpack --image "$work/layout:$tag" "$work/bundle" >/dev/null
rootfs=$work/bundle/rootfs
echo "tag $tag, $(du -sh "$rootfs" | cut -f1) unpacked ($(elapsed))"

step "its config: entrypoint, user, working folder"
python3 - "$work/bundle/config.json" <<'PY' || fail "the image's config is not what make-oci.sh sets"
import json, sys
config = json.load(open(sys.argv[1]))
process = config["process"]
assert process["args"] == ["/opt/reform/bin/reform", "--help"], process["args"]
assert (process["user"]["uid"], process["user"]["gid"]) == (65532, 65532), process["user"]
assert process["cwd"] == "/work", process["cwd"]
assert "PATH=/opt/reform/bin:/usr/bin" in process["env"], process["env"]
PY

step "owners and modes"
others=$(find "$rootfs" ! -user root -print | head -3)
[ -z "$others" ] || fail "files not owned by root: $others"
writable=$(find "$rootfs" -perm -o+w ! -type l ! -path "$rootfs/tmp" ! -path "$rootfs/work" -print | head -3)
[ -z "$writable" ] || fail "files others may write: $writable"

# Runs reform in the image's root as `user` (65532:65532 or 0:0), with the image's environment,
# in a PID and mount namespace of its own with /proc mounted, as a container runtime runs it.
in_image() {
    local user=$1
    shift
    env -i PATH=/opt/reform/bin:/usr/bin SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
        unshare --fork --pid --mount --mount-proc="$rootfs/proc" \
        "$(command -v chroot)" --userspec="$user" "$rootfs" /opt/reform/bin/reform "$@"
}

step "reform --version, as the image's user"
in_image 65532:65532 --version >"$work/version" 2>&1 || fail "reform --version: $(cat "$work/version")"
grep -q "${tag%%-*}" "$work/version" || fail "reform --version says $(cat "$work/version"), not $tag"

step "the main job, as the dev build prints it"
(cd Pipelines && "$reference" run property-list.yaml --quiet >"$work/expected")
in_image 65532:65532 run /opt/reform/Pipelines/property-list.yaml --quiet >"$work/actual" 2>"$work/errors" \
    || fail "the main job: $(cat "$work/errors")"
diff -q "$work/expected" "$work/actual" >/dev/null || fail "the main job differs: $(diff "$work/expected" "$work/actual" | head -5)"
echo "$(wc -l <"$work/actual") lines, the same ($(elapsed))"

step "XML (libxml2, loaded when first needed)"
in_image 65532:65532 run /opt/reform/Pipelines/rss-feed.yaml --quiet >"$work/rss" 2>"$work/errors" || fail "the RSS example: $(cat "$work/errors")"
[ -s "$work/rss" ] || fail "the RSS example printed nothing"

step "PostgreSQL (libpq, loaded when first needed)"
if in_image 65532:65532 cat 'postgres://reform@127.0.0.1:1/none#t' >/dev/null 2>"$work/errors"; then
    fail "reading a table of a server that is not there succeeded"
fi
grep -q "cannot connect" "$work/errors" || fail "libpq did not load: $(cat "$work/errors")"
grep -qi "libpq.so" "$work/errors" && fail "libpq did not load: $(cat "$work/errors")"

step "a table run and reform cat of its table, as root"
in_image 0:0 run /opt/reform/Pipelines/property-list.yaml --run sqlite --quiet 2>"$work/errors" || fail "the sqlite run: $(cat "$work/errors")"
rows=$(in_image 0:0 cat --to ndjson sqlite:out/property-list.db#listings 2>"$work/errors" | wc -l) || fail "reform cat: $(cat "$work/errors")"
[ "$rows" = 17 ] || fail "reform cat read $rows rows, not 17"

echo "the image runs on its own ($(elapsed))"
