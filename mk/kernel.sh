#!/usr/bin/env bash
# Fetch the pinned Debian kernel image package (mk/versions.mk) with
# apt-get download and unpack it with dpkg -x into $1 (default
# build/kernel).  Idempotent: a complete unpack is left alone.
set -euo pipefail
. "$(dirname "$0")/versions.sh"
dest=${1:-build/kernel}
pkg="linux-image-$KVER"
if [ -f "$dest/.unpacked-$KPKG_VERSION" ]; then
	echo "kernel: $pkg $KPKG_VERSION already in $dest"
	exit 0
fi
debs="$(dirname "$dest")/debs"
mkdir -p "$debs" "$dest"
deb="$debs/${pkg}_${KPKG_VERSION}_amd64.deb"
if [ ! -s "$deb" ]; then
	echo "kernel: downloading $pkg=$KPKG_VERSION"
	(cd "$debs" && apt-get download "$pkg=$KPKG_VERSION")
fi
echo "kernel: unpacking $deb into $dest"
dpkg -x "$deb" "$dest"
test -f "$dest/boot/vmlinuz-$KVER" || { echo "kernel: $deb has no boot/vmlinuz-$KVER" >&2; exit 1; }
touch "$dest/.unpacked-$KPKG_VERSION"
