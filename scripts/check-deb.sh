#!/usr/bin/env bash
# Checks the Debian package (scripts/make-deb.sh) the way a user's machine takes it. In a mount
# namespace where the Swift toolchain and this checkout are empty folders (tmpfs), it installs the
# .deb with dpkg into an empty root with its own dpkg database, then checks that:
# - every Depends is satisfied by the Debian packages installed here, at the versions it names;
# - every library the installed files load resolves inside /usr/lib/reform or to a file of a
#   package the control file names (ldd, and LD_DEBUG while the plugin pipeline runs);
# - /usr/bin/reform runs the main job and the plugin pipeline from the packaged examples, with the
#   same output as the dev build, scaffolds a plugin on the packaged SDK sources, and completes
#   from the packaged bash completion;
# - the manual pages render (groff) and name every subcommand;
# - `dpkg --remove` leaves no file behind.
# Prints the package's size and what each step took.
#
#   scripts/check-deb.sh DEB [--reference PATH/TO/reform]   # default reference: .build/debug/reform
#
# Needs unshare(1) with user namespaces, dpkg and groff.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."
root=$PWD

deb=
reference=.build/debug/reform
while [ $# -gt 0 ]; do
    case "$1" in
        --reference) reference=${2:?"--reference needs the dev build's reform"}; shift 2 ;;
        -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) deb=$1; shift ;;
    esac
done
case "$deb" in "" | /*) ;; *) deb=$caller/$deb ;; esac
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
    echo "check-deb.sh: give the package scripts/make-deb.sh printed (got '${deb:-nothing}')" >&2
    exit 2
fi
if [ ! -x "$reference" ]; then
    echo "check-deb.sh: no dev build at $reference to compare with; run 'swift build' or pass --reference" >&2
    exit 2
fi
for tool in dpkg dpkg-deb groff unshare; do
    command -v "$tool" >/dev/null || { echo "check-deb.sh: $tool is needed" >&2; exit 2; }
done
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
# shellcheck source=scripts/lib/hidden-checkout.sh
. scripts/lib/hidden-checkout.sh
make_work_folder deb

# What the dev build prints for the same pipelines, run from the checkout.
runs=(
    "property-list.table|Pipelines/property-list.yaml"
    "property-list.ndjson|Pipelines/property-list.yaml --format ndjson"
    "listings-plugins.table|Pipelines/listings-plugins.yaml"
)
record_expected "$reference" "${runs[@]}"
subcommands=$("$reference" --help | awk '/^SUBCOMMANDS:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ && seen { exit } on { seen = 1 }')

# The part that runs with the toolchain and the checkout out of reach, written to a file first.
cat >"$work/inside.sh" <<'INSIDE'
set -euo pipefail
toolchain=$1 root=$2 deb=$3 work=$4
shift 4
subcommands=$1
shift
mount -t tmpfs none "$toolchain"
mount -t tmpfs none "$root"
fail() { echo "check-deb.sh: $*" >&2; exit 1; }
[ ! -e "$toolchain/usr/bin/swift" ] || fail "the toolchain at $toolchain is still visible"
[ ! -e "$root/Package.swift" ] || fail "the checkout at $root is still visible"
milliseconds() { echo $((($(date +%s%N) - $1) / 1000000)); }

# An empty root with its own dpkg database: the package's dependencies are this machine's, checked
# below against its database, so dpkg is told not to look for them in the empty one.
target=$work/root
mkdir -p "$target/var/lib/dpkg/info" "$target/var/lib/dpkg/updates" "$target/var/lib/dpkg/triggers"
touch "$target/var/lib/dpkg/status" "$target/var/lib/dpkg/available"
began=$(date +%s%N)
dpkg --root="$target" --force-depends --force-script-chrootless -i "$deb" >"$work/install.log" 2>&1 \
    || fail "dpkg -i failed: $(tail -5 "$work/install.log")"
status=$(dpkg --root="$target" -s reform | sed -n 's/^Status: //p')
[ "$status" = "install ok installed" ] || fail "after dpkg -i the package's status is '$status'"
echo "dpkg -i: installed into an empty root in $(milliseconds "$began") ms, $(dpkg --root="$target" -L reform | wc -l) paths"

# Depends, each alternative list checked against this machine's dpkg database.
depends=$(dpkg-deb -f "$deb" Depends)
recommends=$(dpkg-deb -f "$deb" Recommends)
named=()
IFS=',' read -ra clauses <<<"$depends"
for clause in "${clauses[@]}"; do
    satisfied=
    IFS='|' read -ra alternatives <<<"$clause"
    for alternative in "${alternatives[@]}"; do
        read -r name relation <<<"$alternative"
        named+=("${name%%:*}")
        installed=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null) || continue
        if [ -z "$relation" ]; then satisfied=$name; break; fi
        operator=$(sed 's/^(\([<>=]*\) .*/\1/' <<<"$relation")
        wanted=$(sed 's/^([<>=]* \(.*\))$/\1/' <<<"$relation")
        case "$operator" in '>=') op=ge ;; '<=') op=le ;; '>>') op=gt ;; '<<') op=lt ;; '=') op=eq ;; *) fail "unreadable relation '$relation' in Depends: $depends" ;; esac
        if dpkg --compare-versions "$installed" "$op" "$wanted"; then satisfied="$name $installed"; break; fi
    done
    [ -n "$satisfied" ] || fail "Depends '$clause' is not satisfied here"
done
for name in ${recommends//,/ }; do named+=("$name"); done
echo "Depends: $depends — each satisfied here"

# Every library the installed files load: inside the package, or a file of a package it names.
check_resolved() { # NAME PATH
    case "$2" in "$target"/usr/lib/reform/*) return 0 ;; esac
    owner=$(dpkg -S "$2" 2>/dev/null || dpkg -S "$(readlink -f "$2")" 2>/dev/null || dpkg -S "*/$1" 2>/dev/null) || fail "$1 resolves to $2, which no Debian package here owns"
    owner=${owner%%:*}
    printf '%s\n' "${named[@]}" | grep -qxF "$owner" || fail "$1 resolves to $2 of package $owner, which the control file does not name (Depends: $depends)"
}
elves=("$target"/usr/lib/reform/bin/reform "$target"/usr/lib/reform/lib/*.so "$target"/usr/lib/reform/lib/reform/plugins/*.so)
for elf in "${elves[@]}"; do
    needs=$(ldd "$elf")
    if grep -q 'not found' <<<"$needs"; then fail "$elf: $(grep 'not found' <<<"$needs" | tr -s ' \t' ' ')"; fi
    while read -r soname path; do check_resolved "$soname" "$path"; done < <(awk '$1 ~ /vdso/ { next } $2 == "=>" { print $1, $3 } $2 ~ /^\(/ { n = split($1, p, "/"); print p[n], $1 }' <<<"$needs")
done
echo "ldd: ${#elves[@]} files, every library inside /usr/lib/reform or of a package the control file names"

reform=$target/usr/bin/reform
[ -L "$reform" ] || fail "/usr/bin/reform is not the symbolic link to /usr/lib/reform/bin/reform"
echo "version: $("$reform" --version)"
mkdir -p "$work/run"
cp -R "$target/usr/share/doc/reform/examples" "$work/run/Pipelines"
cd "$work/run"
LD_DEBUG=files LD_DEBUG_OUTPUT="$work/ld" "$reform" run Pipelines/listings-plugins.yaml --quiet >/dev/null
loaded=$(cat "$work"/ld.* | sed -n 's/.*calling init: //p' | sort -u)
while read -r path; do check_resolved "$(basename "$path")" "$path"; done <<<"$loaded"
grep -q "^$target/usr/lib/reform/lib/reform/plugins/" <<<"$loaded" || fail "the plugin pipeline loaded no plugin from /usr/lib/reform/lib/reform/plugins"
echo "LD_DEBUG: $(wc -l <<<"$loaded") objects loaded by the plugin pipeline, each inside the package or of a package it names"
mkdir -p "$work/actual"
for entry in "$@"; do
    name=${entry%%|*}
    began=$(date +%s%N)
    # shellcheck disable=SC2086 # the arguments are words on purpose
    "$reform" run ${entry#*|} --quiet >"$work/actual/$name" 2>"$work/actual/$name.stderr" \
        || fail "reform run ${entry#*|} failed: $(cat "$work/actual/$name.stderr")"
    cmp -s "$work/expected/$name" "$work/actual/$name" \
        || fail "reform run ${entry#*|} differs from the dev build: $(diff "$work/expected/$name" "$work/actual/$name" | head -5)"
    echo "run ${entry#*|}: same $(wc -l <"$work/actual/$name") lines as the dev build, $(milliseconds "$began") ms"
done

# `reform plugins new` makes a plugin package on the packaged SDK sources (check-bundle.sh builds one).
mkdir -p "$work/own"
created=$("$reform" plugins new Shout --output "$work/own") || fail "reform plugins new failed: $created"
grep -qF "(SDK: $target/usr/lib/reform/sdk)" <<<"$created" || fail "reform plugins new did not use /usr/lib/reform/sdk: $created"
[ -f "$target/usr/lib/reform/sdk/Sources/ReformSDK/Plugin/ReformerPlugin.swift" ] || fail "the packaged SDK has no sources"
echo "plugins new: a package on /usr/lib/reform/sdk"

# The bash completion the package installs completes the subcommands and a path option's files.
completion=$target/usr/share/bash-completion/completions/reform
[ -s "$completion" ] || fail "no bash completion at /usr/share/bash-completion/completions/reform"
completed=$(bash -c 'source "$1"; COMP_WORDS=(reform ru); COMP_CWORD=1; COMP_LINE="reform ru"; COMP_POINT=${#COMP_LINE}; _reform reform ru reform; printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" 2>&1)
grep -qx run <<<"$completed" || fail "the packaged bash completion does not complete 'reform ru' to 'run': $completed"
echo "completion: 'reform ru' completes to run"

# The manual: a page per subcommand, each rendering.
manual=$target/usr/share/man/man1
[ -f "$manual/reform.1.gz" ] || fail "no reform(1) page"
for subcommand in $subcommands; do
    [ -f "$manual/reform.$subcommand.1.gz" ] || [ -f "$manual/reform-$subcommand.1.gz" ] || fail "no manual page for 'reform $subcommand' (pages: $(ls "$manual" | tr '\n' ' '))"
done
for page in "$manual"/*.1.gz; do
    rendered=$(zcat "$page" | groff -mandoc -Tutf8 -P-cbou 2>"$work/groff.log")
    [ ! -s "$work/groff.log" ] || fail "$(basename "$page") renders with warnings: $(head -3 "$work/groff.log")"
    [ "$(wc -l <<<"$rendered")" -gt 10 ] || fail "$(basename "$page") renders to almost nothing"
done
grep -q "reform run" <(zcat "$manual/reform.1.gz" | groff -mandoc -Tutf8 -P-cbou 2>/dev/null; zcat "$manual"/reform?run.1.gz | groff -mandoc -Tutf8 -P-cbou 2>/dev/null) \
    || fail "the manual does not describe 'reform run'"
echo "manual: $(ls "$manual" | wc -l) pages, each rendering; one per subcommand ($(echo $subcommands | wc -w))"

# Removal leaves nothing of the package.
cd "$work"
dpkg --root="$target" --force-depends -r reform >"$work/remove.log" 2>&1 || fail "dpkg -r failed: $(tail -5 "$work/remove.log")"
left=$(find "$target" \( -type f -o -type l \) -not -path "$target/var/*" | head -5)
[ -z "$left" ] || fail "dpkg -r left files behind: $left"
echo "dpkg -r: nothing left"
INSIDE

# The package may be inside the checkout (CI makes it in .build/bundle), which the check hides.
cp "$deb" "$work/package.deb"
began=$(date +%s.%N)
unshare -m --map-root-user bash "$work/inside.sh" "$toolchain" "$root" "$work/package.deb" "$work" "$subcommands" "${runs[@]}"
finished=$(date +%s.%N)
echo "package: $(du -h "$deb" | cut -f1), checked in $(awk "BEGIN { printf \"%.2f\", $finished - $began }") s"
echo "check-deb.sh: $(basename "$deb") installs, runs and removes cleanly without the toolchain"
