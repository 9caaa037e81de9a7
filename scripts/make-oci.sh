#!/usr/bin/env bash
# Makes an OCI image of the release bundle without a container engine, a registry or a base image
# (this machine has none of them): DIR/reform-VERSION-oci.tar, an OCI image layout as one tar, as
# `podman load -i`, `docker load -i` (Docker 25 and later), `skopeo copy oci-archive:…` and
# `umoci` take it. Its one layer holds:
# - the unpacked bundle in /opt/reform (bin/, lib/, plugins, sdk/, Pipelines/, docs/);
# - the system libraries its programs and plugins load (ldd, run inside the bundle), libpq and
#   libxml2 (which runs load when they first use PostgreSQL or XML) and theirs, each at its path
#   in a merged-/usr tree, and the dynamic loader;
# - the CA certificates (/etc/ssl/certs/ca-certificates.crt), /etc/passwd and /etc/group with
#   root and `reform` (65532), a writable /tmp and /work, and the /proc, /dev and /sys a runtime
#   mounts (the loader finds the bundle's libraries from /proc/self/exe: their run path is
#   $ORIGIN/../lib).
# The image runs /opt/reform/bin/reform as `reform` in /work (`--help` by default). The
# Containerfile beside it builds the same from debian:bookworm-slim where a registry is reachable.
# scripts/check-oci.sh unpacks the image and runs it.
#
#   scripts/make-oci.sh BUNDLE [--out DIR]     # default DIR: the bundle's folder
#
# Needs umoci (Debian's umoci package), ldd and ldconfig; as root (umoci unpacks with owners kept).
# The image's path is the last line printed.
set -euo pipefail

bundle=
out=
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:?"--out needs a folder"}; shift 2 ;;
        -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) bundle=$1; shift ;;
    esac
done
if [ -z "$bundle" ] || [ ! -f "$bundle" ]; then
    echo "make-oci.sh: give the bundle scripts/make-bundle.sh printed (got '${bundle:-nothing}')" >&2
    exit 2
fi
command -v umoci >/dev/null || { echo "make-oci.sh: needs umoci (apt-get install umoci)" >&2; exit 2; }
bundle=$(cd "$(dirname "$bundle")" && pwd)/$(basename "$bundle")
out=${out:-$(dirname "$bundle")}
mkdir -p "$out"
name=$(basename "$bundle" .tar.gz)              # reform-0.9.0-linux-x86_64
version=${name#reform-}
version=${version%-linux-*}

work=$(mktemp -d "${TMPDIR:-/tmp}/reform-oci.XXXXXX")
trap 'rm -rf "$work"' EXIT
umoci init --layout "$work/layout"
umoci new --image "$work/layout:reform"
umoci unpack --image "$work/layout:reform" "$work/unpacked" >/dev/null
rootfs=$work/unpacked/rootfs

# A merged-/usr tree, as Debian's: /lib, /lib64 and /bin lead into /usr.
mkdir -p "$rootfs/usr/lib/x86_64-linux-gnu" "$rootfs/usr/lib64" "$rootfs/usr/bin" "$rootfs/etc/ssl/certs" \
    "$rootfs/opt" "$rootfs/tmp" "$rootfs/work" "$rootfs/proc" "$rootfs/dev" "$rootfs/sys"
ln -s usr/lib "$rootfs/lib"
ln -s usr/lib64 "$rootfs/lib64"
ln -s usr/bin "$rootfs/bin"
chmod 1777 "$rootfs/tmp" "$rootfs/work"

tar -xzf "$bundle" -C "$rootfs/opt"
mv "$rootfs/opt/reform-$version" "$rootfs/opt/reform"

# Copies the system library `path` (as ldd or ldconfig names it) into the tree: the file at its
# real path, and `path` itself as a link to it when that is another name.
copy_library() {
    local path=$1 real
    real=$(readlink -f "$path")
    if [ ! -e "$rootfs$real" ]; then
        mkdir -p "$rootfs$(dirname "$real")"
        cp "$real" "$rootfs$real"
    fi
    if [ "$path" != "$real" ] && [ ! -e "$rootfs$path" ] && [ ! -L "$rootfs$path" ]; then
        mkdir -p "$rootfs$(dirname "$path")"
        ln -s "$real" "$rootfs$path"
    fi
}
# Every library `file` loads from the system (those inside the bundle are there already).
libraries_of() {
    ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | grep -v "^$rootfs" || true
}
elves=$(find "$rootfs/opt/reform" -type f \( -perm -u+x -o -name '*.so*' \) -exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print)
# Loaded when a run first needs them, so no ldd names them.
for soname in libpq.so.5 libxml2.so.2 libssl.so.3; do
    # awk reads to the end (no early exit): ldconfig would die of SIGPIPE, which pipefail makes fatal.
    found=$(ldconfig -p | awk -v name="$soname" '$1 == name && /x86-64/ && found == "" { found = $NF } END { print found }')
    [ -n "$found" ] || { echo "make-oci.sh: $soname is not installed here (apt-get install libpq5 libxml2 libssl3)" >&2; exit 1; }
    copy_library "$found"
    elves="$elves $found"
done
for file in $elves; do
    for library in $(libraries_of "$file"); do copy_library "$library"; done
done

cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/" 2>/dev/null \
    || echo "make-oci.sh: no /etc/ssl/certs/ca-certificates.crt here: the image trusts no CA (apt-get install ca-certificates)" >&2
printf 'root:x:0:0:root:/root:/sbin/nologin\nreform:x:65532:65532:reform:/work:/sbin/nologin\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nreform:x:65532:\n' > "$rootfs/etc/group"

umoci repack --image "$work/layout:reform" "$work/unpacked" >/dev/null
umoci config --image "$work/layout:reform" --tag "$version" \
    --config.entrypoint /opt/reform/bin/reform --config.cmd --help --config.workingdir /work --config.user 65532:65532 \
    --config.env PATH=/opt/reform/bin:/usr/bin --config.env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    --config.label org.opencontainers.image.title=reform --config.label "org.opencontainers.image.version=$version" \
    --config.label org.opencontainers.image.licenses=Apache-2.0 --architecture amd64 --os linux
umoci rm --image "$work/layout:reform"
umoci gc --layout "$work/layout"

image=$out/reform-$version-oci.tar
tar -C "$work/layout" -cf "$image" .
echo "image: $(du -h "$image" | cut -f1) ($(find "$rootfs" -type f | wc -l) files), tag $version" >&2
echo "$image"
