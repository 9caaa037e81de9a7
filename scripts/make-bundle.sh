#!/usr/bin/env bash
# Makes the release bundle: DIR/reform-VERSION-linux-x86_64.tar.gz holding one folder
# reform-VERSION/ with bin/reform, lib/ (libReformSDK.so and every Swift runtime, Foundation and
# Dispatch library the program and the plugins need, found through $ORIGIN-relative run paths),
# lib/reform/plugins/ (the Plugins/ packages, built against the same ReformSDK), sdk/ (the
# ReformSDK package's sources, for plugins of one's own), Pipelines/ (the examples) and docs/. It runs where only base Debian libraries are installed (libc, libstdc++,
# libgcc_s, libm, libz, libyaml-0-2, libsqlite3-0); scripts/check-bundle.sh proves it.
#
#   scripts/make-bundle.sh [-c release|debug] [--out DIR]     # default: release, dist/
#
# Release builds in .build-release (--scratch-path), debug in .build (what `swift build` made).
# The tarball's path is the last line printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

configuration=release
out=dist
while [ $# -gt 0 ]; do
    case "$1" in
        -c | --configuration) configuration=${2:?"-c needs release or debug"}; shift 2 ;;
        --out) out=${2:?"--out needs a folder"}; shift 2 ;;
        -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "make-bundle.sh: unknown argument '$1'; use -c release|debug and --out DIR" >&2; exit 2 ;;
    esac
done
case "$configuration" in
    release) scratch=.build-release ;;
    debug) scratch=.build ;;
    *) echo "make-bundle.sh: -c takes release or debug, not '$configuration'" >&2; exit 2 ;;
esac

command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
if ! command -v patchelf >/dev/null; then
    echo "make-bundle.sh: patchelf is needed to set the run paths; install it with 'apt-get install patchelf'" >&2
    exit 1
fi

# The one version source: what `reform --version` prints (Sources/ReformEngine/ReformVersion.swift).
version_file=Sources/ReformEngine/ReformVersion.swift
version=$(sed -n 's/^ *public static let release = "\([^"]*\)".*/\1/p' "$version_file")
if [ -z "$version" ]; then
    echo "make-bundle.sh: no 'public static let release = \"…\"' in $version_file" >&2
    exit 1
fi
name=reform-$version
started=$(date +%s.%N)

echo "== build reform ($configuration, $scratch)" >&2
swift build -c "$configuration" --scratch-path "$scratch" --product reform >&2
# `reform init` runs reform-init beside reform (it needs all of Foundation; reform does not).
swift build -c "$configuration" --scratch-path "$scratch" --product reform-init >&2
# `reform studio` runs reform-studio beside reform (it has the web server; reform does not).
swift build -c "$configuration" --scratch-path "$scratch" --product reform-studio >&2
built=$scratch/$configuration
printed=$("$built/reform" --version)
if [[ $printed != "reform $version (plugin ABI "*")" ]]; then
    echo "make-bundle.sh: $built/reform --version prints '$printed', but $version_file says $version; rebuild" >&2
    exit 1
fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/reform-bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT
bundle=$stage/$name
mkdir -p "$bundle/bin" "$bundle/lib/reform/plugins" "$bundle/docs"

cp "$built/reform" "$bundle/bin/reform"
cp "$built/reform-init" "$bundle/bin/reform-init"
cp "$built/reform-studio" "$bundle/bin/reform-studio"
cp "$built/libReformSDK.so" "$bundle/lib/libReformSDK.so"

# Every plugin package, built in the same configuration; each links libReformSDK.so by name, which
# the dynamic loader finds already loaded (the bundle's) when reform opens the plugin.
for manifest in Plugins/*/Package.swift; do
    [ -e "$manifest" ] || continue
    package=$(dirname "$manifest")
    plugin=$(basename "$package")
    echo "== build plugin $plugin ($configuration)" >&2
    swift build -c "$configuration" --package-path "$package" >&2
    cp "$package/.build/$configuration/lib$plugin.so" "$bundle/lib/reform/plugins/lib$plugin.so"
done

# Copy what the program and the plugins load from anywhere but the system folders (the toolchain's
# Swift runtime, Foundation, Dispatch), as ldd resolves it for the built files (before their run
# paths change); ldd lists indirect needs too.
is_system() {
    case "$1" in /lib/* | /lib64/* | /usr/lib/* | /usr/lib64/*) return 0 ;; *) return 1 ;; esac
}
originals=("$built/reform" "$built/reform-init" "$built/reform-studio" "$built/libReformSDK.so")
for library in "$bundle"/lib/reform/plugins/*.so; do
    [ -e "$library" ] || continue
    plugin=$(basename "$library" .so)
    originals+=("Plugins/${plugin#lib}/.build/$configuration/$plugin.so")
done
for elf in "${originals[@]}"; do
    missing=$(ldd "$elf" | awk '/not found/ { print $1 }')
    if [ -n "$missing" ]; then
        echo "make-bundle.sh: $elf needs libraries found nowhere: $missing" >&2
        exit 1
    fi
    while read -r soname path; do
        is_system "$path" && continue
        [ -e "$bundle/lib/$soname" ] && continue
        cp -L "$path" "$bundle/lib/$soname"
        chmod u+w "$bundle/lib/$soname"
    done < <(ldd "$elf" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }')
done

# Run paths: the program looks in ../lib, the libraries beside themselves, the plugins two up.
patchelf --set-rpath '$ORIGIN/../lib' "$bundle/bin/reform"
patchelf --set-rpath '$ORIGIN/../lib' "$bundle/bin/reform-init"
patchelf --set-rpath '$ORIGIN/../lib' "$bundle/bin/reform-studio"
for library in "$bundle"/lib/*.so; do
    patchelf --set-rpath '$ORIGIN' "$library"
done
for library in "$bundle"/lib/reform/plugins/*.so; do
    [ -e "$library" ] && patchelf --set-rpath '$ORIGIN/../..' "$library"
done

# A release bundle drops the symbol tables (names for debuggers; Swift's metadata and the dynamic
# symbols stay): about a third of the size. The debug bundle keeps everything.
if [ "$configuration" = release ]; then
    strip "$bundle/bin/reform" "$bundle/bin/reform-studio"
    strip --strip-unneeded "$bundle/lib/libReformSDK.so" "$bundle"/lib/reform/plugins/*.so
fi

# The SDK package's sources, the ones lib/libReformSDK.so was built from: `reform plugins new` from
# the bundle makes a plugin package that depends on it (sdk/ beside bin/), so a plugin of one's own
# builds where no checkout is.
mkdir -p "$bundle/sdk"
cp SDK/Package.swift "$bundle/sdk/Package.swift"
cp -R SDK/Sources "$bundle/sdk/Sources"

cp -R Pipelines "$bundle/Pipelines"
cp README.md "$bundle/README.md"
cp docs/*.md "$bundle/docs/"
cp Plugins/README.md "$bundle/docs/plugins.md"
cp LICENSE "$bundle/LICENSE"
cat >"$bundle/docs/bundle.md" <<EOF
# reform $version, release bundle ($configuration build, linux-x86_64)

    export PATH=\$PWD/bin:\$PATH            # from this folder
    reform --version
    reform run Pipelines/property-list.yaml
    reform run Pipelines/listings-plugins.yaml   # the bundled plugins, from lib/reform/plugins

bin/reform finds its libraries in ../lib (run path \$ORIGIN/../lib); keep bin/ and lib/ together.
It needs only base Debian libraries: libc6, libstdc++6, libgcc-s1, zlib1g, libyaml-0-2, libsqlite3-0.
Plugins in lib/reform/plugins are searched after plugin_paths, REFORM_PLUGIN_PATH and Plugins/
folders; a plugin of your own must be built against this ReformSDK release (plugin ABI in
'reform --version'): 'reform plugins new NAME' makes a package that depends on sdk/ here, the
sources lib/libReformSDK.so was built from (building it needs a Swift toolchain).
EOF

mkdir -p "$out"
tarball=$(cd "$out" && pwd)/$name-linux-x86_64.tar.gz
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -czf "$tarball.tmp" "$name"
mv "$tarball.tmp" "$tarball"
finished=$(date +%s.%N)
echo "== $(du -h "$tarball" | cut -f1) packed, $(du -sh "$bundle" | cut -f1) unpacked, $(ls "$bundle/lib" | grep -c '\.so$') libraries, made in $(awk "BEGIN { printf \"%.1f\", $finished - $started }") s" >&2
echo "$tarball"
