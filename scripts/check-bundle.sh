#!/usr/bin/env bash
# Checks a release bundle the way a machine without Swift would use it: unpacks the tarball, then in
# a mount namespace where the Swift toolchain and this checkout are empty folders (tmpfs), checks
# that every library the program and its plugins need resolves inside the bundle or to a base
# Debian library (ldd, and LD_DEBUG while a plugin pipeline runs), and runs the main job and the
# plugin pipeline from the bundle. Their outputs must equal the dev build's for the same pipelines.
# Then, with only the checkout hidden, it scaffolds a plugin with the bundled reform on the bundle's
# SDK sources (sdk/), builds and tests it, and runs a pipeline through it with the bundled reform.
# Prints what it took: sizes and times.
#
#   scripts/check-bundle.sh TARBALL [--reference PATH/TO/reform]   # default reference: .build/debug/reform
#
# Needs unshare(1) with user namespaces (util-linux; `unshare -m --map-root-user`).
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
root=$PWD

tarball=
reference=.build/debug/reform
while [ $# -gt 0 ]; do
    case "$1" in
        --reference) reference=${2:?"--reference needs the dev build's reform"}; shift 2 ;;
        -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) tarball=$1; shift ;;
    esac
done
case "$tarball" in "" | /*) ;; *) tarball=$caller/$tarball ;; esac
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
    echo "check-bundle.sh: give the tarball scripts/make-bundle.sh printed (got '${tarball:-nothing}')" >&2
    exit 2
fi
if [ ! -x "$reference" ]; then
    echo "check-bundle.sh: no dev build at $reference to compare with; run 'swift build' or pass --reference" >&2
    exit 2
fi
# shellcheck source=scripts/lib/hidden-checkout.sh
. scripts/lib/hidden-checkout.sh
make_work_folder bundle

# What the dev build prints for the same pipelines, from the checkout (its plugins are the
# Plugins/ packages' own builds).
runs=(
    "property-list.table|Pipelines/property-list.yaml"
    "property-list.ndjson|Pipelines/property-list.yaml --format ndjson"
    "listings-plugins.table|Pipelines/listings-plugins.yaml"
    "listings-plugins.ndjson|Pipelines/listings-plugins.yaml --run property-list"
)
record_expected "$reference" "${runs[@]}"
# The OpenAPI document `reform init` reads inside, where the checkout is out of reach.
cp Tests/Server/openapi.json "$work/openapi.json"

start=$(date +%s.%N)
tar -C "$work" -xzf "$tarball"
unpacked=$(date +%s.%N)
bundle=$(find "$work" -mindepth 1 -maxdepth 1 -name 'reform-*' -type d | head -1)
if [ -z "$bundle" ] || [ ! -x "$bundle/bin/reform" ]; then
    echo "check-bundle.sh: $tarball has no reform-VERSION/bin/reform" >&2
    exit 1
fi
version=$(sed -n 's/^ *public static let release = "\([^"]*\)".*/\1/p' Sources/ReformEngine/ReformVersion.swift)

# The part that runs with the toolchain and the checkout out of reach. Written to a file first:
# bash reads a script as it goes, and this one's folder is about to become an empty tmpfs.
cat >"$work/inside.sh" <<'INSIDE'
set -euo pipefail
toolchain=$1 root=$2 bundle=$3 work=$4 version=$5
shift 5
mount -t tmpfs none "$toolchain"
mount -t tmpfs none "$root"
cd "$bundle"
fail() { echo "check-bundle.sh: $*" >&2; exit 1; }
[ ! -e "$toolchain/usr/bin/swift" ] || fail "the toolchain at $toolchain is still visible"
[ ! -e "$root/Package.swift" ] || fail "the checkout at $root is still visible"

# Base Debian libraries the bundle may use from the system; everything else must be in it.
allowed='^(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libz\.so\.1|libyaml-0\.so\.2|libsqlite3\.so\.0)$'
check_resolved() { # NAME PATH: a library the loader resolved
    case "$2" in "$bundle"/*) return 0 ;; esac
    [[ $1 =~ $allowed ]] || fail "$1 resolves outside the bundle, to $2 (not a base Debian library); make-bundle.sh should have copied it"
    case "$2" in /lib/* | /lib64/* | /usr/lib/*) ;; *) fail "$1 resolves to $2, not a system folder" ;; esac
}
elves=(bin/reform bin/reform-init bin/reform-studio lib/*.so lib/reform/plugins/*.so)
for elf in "${elves[@]}"; do
    needs=$(ldd "$elf")
    if grep -q 'not found' <<<"$needs"; then fail "$elf: $(grep 'not found' <<<"$needs" | tr -s ' \t' ' ')"; fi
    for path in $(patchelf --print-rpath "$elf" | tr ':' ' '); do
        case "$path" in '$ORIGIN' | '$ORIGIN/'*) ;; *) fail "$elf has the run path $path outside the bundle; make-bundle.sh sets \$ORIGIN-relative ones" ;; esac
    done
    while read -r soname path; do check_resolved "$soname" "$path"; done < <(awk '$1 ~ /vdso/ { next } $2 == "=>" { print $1, $3 } $2 ~ /^\(/ { n = split($1, p, "/"); print p[n], $1 }' <<<"$needs")
done
echo "ldd: ${#elves[@]} files, every library inside the bundle or base Debian"

[[ "$(bin/reform --version)" == "reform $version (plugin ABI "*")" ]] \
    || fail "bin/reform --version prints '$(bin/reform --version)', expected reform $version"
grep -q "Apache License" LICENSE 2>/dev/null || fail "the bundle has no LICENSE (make-bundle.sh copies the repository's)"
echo "version: $(bin/reform --version)"

# What the process really loads while the plugins run (LD_DEBUG=files: 'calling init: PATH').
LD_DEBUG=files LD_DEBUG_OUTPUT="$work/ld" bin/reform run Pipelines/listings-plugins.yaml --quiet >/dev/null
loaded=$(cat "$work"/ld.* | sed -n 's/.*calling init: //p' | sort -u)
while read -r path; do check_resolved "$(basename "$path")" "$path"; done <<<"$loaded"
for plugin in lib/reform/plugins/*.so; do
    grep -qxF "$bundle/$plugin" <<<"$loaded" || fail "the plugin pipeline did not load $plugin"
done
[ "$(grep -c 'libReformSDK\.so$' <<<"$loaded")" = 1 ] || fail "libReformSDK.so loaded more than once: $(grep libReformSDK <<<"$loaded")"
echo "LD_DEBUG: $(wc -l <<<"$loaded") objects loaded by the plugin pipeline, one libReformSDK.so ($bundle/lib)"

mkdir -p "$work/actual"
for entry in "$@"; do
    name=${entry%%|*}
    began=$(date +%s%N)
    # shellcheck disable=SC2086 # the arguments are words on purpose
    bin/reform run ${entry#*|} --quiet >"$work/actual/$name" 2>"$work/actual/$name.stderr" \
        || fail "bin/reform run ${entry#*|} failed: $(cat "$work/actual/$name.stderr")"
    ended=$(date +%s%N)
    cmp -s "$work/expected/$name" "$work/actual/$name" \
        || fail "bin/reform run ${entry#*|} differs from the dev build: $(diff "$work/expected/$name" "$work/actual/$name" | head -5)"
    echo "run ${entry#*|}: same $(wc -l <"$work/actual/$name") lines as the dev build, $(((ended - began) / 1000000)) ms"
done

# `reform init` hands over to the bundled reform-init, which loads Foundation from the bundle's lib/.
mkdir -p "$work/init"
bin/reform init --openapi "$work/openapi.json" --output "$work/init" >"$work/init.out" 2>&1 \
    || fail "bin/reform init failed: $(cat "$work/init.out")"
bin/reform validate "$work/init/reform-test-server.yaml" >/dev/null 2>"$work/init.err" \
    || fail "the pipeline bin/reform init wrote does not validate: $(cat "$work/init.err")"
echo "init: $(head -1 "$work/init.out")"

# `reform studio` hands over to the bundled reform-studio: it serves its page (compiled in) and
# refuses a request without its token.
bin/reform studio Pipelines/property-list.yaml --scratch "$work/studio" >"$work/studio.out" 2>&1 &
studio=$!
for _ in $(seq 100); do grep -q '^reform studio: http' "$work/studio.out" && break; sleep 0.1; done
url=$(sed -n 's/^reform studio: \(http[^ ]*\)$/\1/p' "$work/studio.out" | head -1)
[ -n "$url" ] || fail "bin/reform studio printed no URL: $(cat "$work/studio.out")"
page=$(curl -sf "$url") || fail "bin/reform studio did not serve its page at $url"
grep -q "<title>Reform Studio</title>" <<<"$page" || fail "bin/reform studio served another page"
[ "$(curl -s -o /dev/null -w '%{http_code}' "${url%%\?*}")" = 403 ] || fail "bin/reform studio answered without its token"
kill -TERM "$studio"
wait "$studio" || fail "bin/reform studio did not stop cleanly on SIGTERM"
echo "studio: served its page at 127.0.0.1, 403 without the token"
INSIDE

unshare -m --map-root-user bash "$work/inside.sh" "$toolchain" "$root" "$bundle" "$work" "$version" "${runs[@]}"
finished=$(date +%s.%N)

# A plugin of one's own from the bundle, where no checkout is (only the checkout hidden: building
# a plugin needs the toolchain): `reform plugins new` makes a package on the bundle's sdk/, which
# builds and passes its tests, and the bundled reform runs a pipeline through it, loading the
# bundle's libReformSDK.so and no other.
cat >"$work/own-plugin.sh" <<'OWN'
set -euo pipefail
root=$1 bundle=$2 work=$3
mount -t tmpfs none "$root"
fail() { echo "check-bundle.sh: $*" >&2; exit 1; }
[ ! -e "$root/Package.swift" ] || fail "the checkout at $root is still visible"
mkdir -p "$work/own"
cd "$work/own"
created=$("$bundle/bin/reform" plugins new Shout --output "$work/own") || fail "reform plugins new failed: $created"
grep -qF "(SDK: $bundle/sdk)" <<<"$created" || fail "reform plugins new did not use the bundle's sdk/: $created"
grep -qF ".package(path: \"$bundle/sdk\")" Shout/Package.swift || fail "Shout/Package.swift does not depend on $bundle/sdk"
began=$(date +%s)
swift test --package-path Shout >"$work/own/test.log" 2>&1 || fail "the scaffolded plugin's tests fail: $(tail -20 "$work/own/test.log")"
grep -q "Test conforms() passed" "$work/own/test.log" || fail "the scaffolded plugin's conformance test did not run: $(tail -5 "$work/own/test.log")"
cat >shout.yaml <<'YAML'
reform: 1
name: shout
plugin_paths: [.]
managers:
  listings: { records: list }
reformers:
  loud: { plugin: Shout, options: { key: name } }
runs:
  default: { reform: [loud], output: { format: ndjson } }
YAML
printf '{"id":1,"name":"Shanghai"}\n' >in.ndjson
LD_DEBUG=files LD_DEBUG_OUTPUT="$work/own/ld" "$bundle/bin/reform" run shout.yaml --input listings=in.ndjson --quiet >out.ndjson \
    || fail "the bundled reform could not run the scaffolded plugin"
[ "$(cat out.ndjson)" = '{"id":1,"name":"SHANGHAI"}' ] || fail "the scaffolded plugin wrote $(cat out.ndjson)"
loaded=$(cat "$work"/own/ld.* | sed -n 's/.*calling init: //p' | grep 'libReformSDK\.so$' | xargs -r -n1 readlink -f | sort -u)
[ "$loaded" = "$(readlink -f "$bundle/lib/libReformSDK.so")" ] || fail "the pipeline loaded $loaded, not only the bundle's libReformSDK.so"
echo "own plugin: 'reform plugins new' on the bundle's sdk/, built and tested in $(($(date +%s) - began)) s, run by the bundled reform with its libReformSDK.so"
OWN
unshare -m --map-root-user bash "$work/own-plugin.sh" "$root" "$bundle" "$work"
seconds() { awk "BEGIN { printf \"%.2f\", $2 - $1 }"; }
echo "bundle: $(du -h "$tarball" | cut -f1) packed, $(du -sh "$bundle" | cut -f1) unpacked ($(du -sh "$bundle/lib" | cut -f1) of it lib/), unpacked in $(seconds "$start" "$unpacked") s, checked in $(seconds "$unpacked" "$finished") s"
echo "check-bundle.sh: $(basename "$tarball") runs without the toolchain"
