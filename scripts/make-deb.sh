#!/usr/bin/env bash
# Makes the Debian package from a release bundle (scripts/make-bundle.sh): DIR/reform_VERSION_amd64.deb
# installing the bundle under /usr/lib/reform (bin/, lib/ with the Swift runtime and libReformSDK.so,
# lib/reform/plugins/, sdk/ with the SDK package's sources for `reform plugins new`), the command
# as /usr/bin/reform, its manual pages (reform(1), one page per subcommand, generated from --help by
# swift-argument-parser's generate-manual), bash completion, and the README, docs, examples
# (Pipelines/) and licence under /usr/share/doc/reform.
# Its Depends are what dpkg-shlibdeps finds the files need from Debian's libraries (libc6,
# libstdc++6, libgcc-s1, zlib1g, libyaml-0-2, libsqlite3-0, with the versions their symbols need);
# libpq5, libxml2 and libssl3 are Recommends: they are loaded only when a run uses PostgreSQL,
# reads an XML body or sends an https request (without libssl3, https goes through the bundled
# BoringSSL). scripts/check-deb.sh
# installs it into an empty root and runs it there.
#
#   scripts/make-deb.sh TARBALL [--out DIR] [--manual DIR]   # default out: the tarball's folder
#
# --manual takes pages generate-manual already wrote (else generate-manual is built here from the
# resolved swift-argument-parser checkout: about a minute). The package's path is the last line printed.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
root=$PWD

tarball=
out=
manual=
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:?"--out needs a folder"}; shift 2 ;;
        --manual) manual=$(cd "$caller" && cd "${2:?"--manual needs the folder generate-manual wrote"}" && pwd); shift 2 ;;
        -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "make-deb.sh: unknown option '$1'; use --out DIR or --manual DIR" >&2; exit 2 ;;
        *) tarball=$1; shift ;;
    esac
done
case "$tarball" in "" | /*) ;; *) tarball=$caller/$tarball ;; esac
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
    echo "make-deb.sh: give the tarball scripts/make-bundle.sh printed (got '${tarball:-nothing}')" >&2
    exit 2
fi
for tool in dpkg-deb dpkg-shlibdeps; do
    if ! command -v "$tool" >/dev/null; then
        echo "make-deb.sh: $tool is needed; install it with 'apt-get install dpkg-dev'" >&2
        exit 1
    fi
done
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")
out=$(cd "$caller" && mkdir -p "${out:-$(dirname "$tarball")}" && cd "${out:-$(dirname "$tarball")}" && pwd)
started=$(date +%s.%N)

work=$(mktemp -d "${TMPDIR:-/tmp}/reform-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$tarball"
bundle=$(find "$work" -mindepth 1 -maxdepth 1 -name 'reform-*' -type d | head -1)
if [ -z "$bundle" ] || [ ! -x "$bundle/bin/reform" ]; then
    echo "make-deb.sh: $tarball has no reform-VERSION/bin/reform" >&2
    exit 1
fi
version=${bundle##*/reform-}

package=$work/package
mkdir -p "$package/DEBIAN" "$package/usr/bin" "$package/usr/lib/reform" "$package/usr/share/doc/reform" \
    "$package/usr/share/man/man1" "$package/usr/share/bash-completion/completions"
cp -R "$bundle/bin" "$bundle/lib" "$bundle/sdk" "$package/usr/lib/reform/"
ln -s ../lib/reform/bin/reform "$package/usr/bin/reform"
cp "$bundle/README.md" "$package/usr/share/doc/reform/README.md"
cp -R "$bundle/docs" "$package/usr/share/doc/reform/docs"
cp -R "$bundle/Pipelines" "$package/usr/share/doc/reform/examples"
rm -f "$package/usr/share/doc/reform/docs/bundle.md"
cat >"$package/usr/share/doc/reform/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: reform
License: Apache-2.0

Files: *
License: Apache-2.0
 The full text follows, as the package's LICENSE file has it.
 .
$(sed 's/^$/./; s/^/ /' "$bundle/LICENSE")
EOF
# The completion script, as the packaged program writes it.
"$package/usr/lib/reform/bin/reform" --generate-completion-script bash >"$package/usr/share/bash-completion/completions/reform"

# The manual: one page per command and subcommand, from the program's own help. generate-manual
# is built from the swift-argument-parser checkout the package resolved (its plugin would rebuild
# the whole package with other settings first), then reads the packaged program's help.
if [ -z "$manual" ]; then
    command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
    parser=$root/.build/checkouts/swift-argument-parser
    if [ ! -f "$parser/Package.swift" ]; then
        echo "make-deb.sh: no swift-argument-parser checkout at $parser; run 'swift build' first, or pass --manual DIR" >&2
        exit 1
    fi
    echo "== build generate-manual (swift-argument-parser's tool)" >&2
    cp -R "$parser" "$work/argument-parser"
    swift build --package-path "$work/argument-parser" --scratch-path "$work/argument-parser-build" --product generate-manual \
        >"$work/generate-manual.log" 2>&1 || {
        tail -30 "$work/generate-manual.log" >&2
        exit 1
    }
    manual=$work/manual
    mkdir -p "$manual"
    "$work/argument-parser-build/debug/generate-manual" "$package/usr/lib/reform/bin/reform" --multi-page \
        --output-directory "$manual" --date "$(date -u +%Y-%m-%d)" --section 1 >&2
fi
pages=$(find "$manual" -name 'reform*.1' | wc -l)
if [ "$pages" = 0 ]; then
    echo "make-deb.sh: no reform*.1 page in $manual" >&2
    exit 1
fi
find "$manual" -name 'reform*.1' -exec cp {} "$package/usr/share/man/man1/" \;
# A blank line in a command's discussion (a paragraph break) comes out as an empty mdoc input line,
# which groff warns about: it is written as the paragraph macro.
sed -i 's/^$/.Pp/' "$package"/usr/share/man/man1/*.1
gzip -9n "$package"/usr/share/man/man1/*.1

# Depends: what the package's ELF files need from outside it, as dpkg-shlibdeps reads the symbols
# files of the Debian packages that provide it. Its own libraries are searched in the package.
elves=("$package"/usr/lib/reform/bin/reform "$package"/usr/lib/reform/bin/reform-init "$package"/usr/lib/reform/bin/reform-studio "$package"/usr/lib/reform/lib/*.so "$package"/usr/lib/reform/lib/reform/plugins/*.so)
mkdir -p "$work/shlibs/debian"
printf 'Source: reform\n\nPackage: reform\nArchitecture: amd64\n' >"$work/shlibs/debian/control"
depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O -l"$package/usr/lib/reform/lib" \
    $(printf -- "-e%s " "${elves[@]}") 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') || {
    cat "$work/shlibdeps.log" >&2
    exit 1
}
if [ -z "$depends" ]; then
    echo "make-deb.sh: dpkg-shlibdeps found no dependency: $(cat "$work/shlibdeps.log")" >&2
    exit 1
fi

installed_size=$(du -sk --exclude=DEBIAN "$package" | cut -f1)
cat >"$package/DEBIAN/control" <<EOF
Package: reform
Version: $version
Architecture: amd64
Maintainer: Reform developers <reform@localhost>
Installed-Size: $installed_size
Depends: $depends
Recommends: libpq5, libxml2, libssl3
Section: utils
Priority: optional
Description: API and data pipelines declared in YAML
 Reform runs API managers (paging, rate limits, retries, incremental state),
 passes the records they land through chains of reformers declared in YAML,
 and writes constant-keyed records, rendered rows (CSV, Markdown, HTML) or
 SQLite and PostgreSQL tables. Reformer plugins are shared libraries built
 against the bundled ReformSDK. Examples: /usr/share/doc/reform/examples.
EOF

deb=$out/reform_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$package" "$deb.tmp" >&2
mv "$deb.tmp" "$deb"
finished=$(date +%s.%N)
echo "== $(du -h "$deb" | cut -f1) package, $installed_size KiB installed, $pages manual pages, Depends: $depends, made in $(awk "BEGIN { printf \"%.1f\", $finished - $started }") s" >&2
echo "$deb"
