# Sourced by scripts/check-bundle.sh and scripts/check-deb.sh, which run a packaged reform with the
# Swift toolchain and this checkout hidden. Needs $root (the checkout) set.

# The toolchain's root folder (the one a mount namespace covers with an empty tmpfs).
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")

# Sets $work to a new temporary folder, removed at exit, outside the checkout (which gets hidden).
# $1: the calling script's name, for messages and the folder's name.
make_work_folder() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/reform-$1-check.XXXXXX")
    # shellcheck disable=SC2064 # $work is meant to be expanded now
    trap "rm -rf '$work'" EXIT
    case "$work/" in "$root"/*)
        echo "$1.sh: the temporary folder $work is inside the checkout, which the check hides; set TMPDIR elsewhere" >&2
        exit 2
        ;;
    esac
}

# Writes what the dev build `$1` prints for each run "NAME|ARGUMENTS" that follows, from the
# checkout, into $work/expected/NAME (and NAME.stderr).
record_expected() {
    local reference=$1 entry
    shift
    mkdir -p "$work/expected"
    for entry in "$@"; do
        # shellcheck disable=SC2086 # the arguments are words on purpose
        "$reference" run ${entry#*|} --quiet >"$work/expected/${entry%%|*}" 2>"$work/expected/${entry%%|*}.stderr"
    done
}
