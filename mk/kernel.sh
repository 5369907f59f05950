#!/usr/bin/env bash
# Fetch the pinned Debian kernel image package (mk/versions.mk) with
# apt-get download and unpack it with dpkg -x into $1 (default
# build/kernel).  Idempotent: a complete unpack is left alone.
set -euo pipefail
. "$(dirname "$0")/versions.sh"
dest=${1:-build/kernel}
pkg="linux-image-$KVER"
if [ -f "$dest/.unpacked-$KPKG_VERSION" ] && [ -s "$dest/vmlinux" ]; then
	echo "kernel: $pkg $KPKG_VERSION already in $dest"
	exit 0
fi
debs="$(dirname "$dest")/debs"
mkdir -p "$debs" "$dest"
deb="$debs/${pkg}_${KPKG_VERSION}_amd64.deb"
if [ -f "$dest/.unpacked-$KPKG_VERSION" ]; then
	:
elif [ ! -s "$deb" ]; then
	echo "kernel: downloading $pkg=$KPKG_VERSION"
	(cd "$debs" && apt-get download "$pkg=$KPKG_VERSION")
fi
if [ ! -f "$dest/.unpacked-$KPKG_VERSION" ]; then
	echo "kernel: unpacking $deb into $dest"
	dpkg -x "$deb" "$dest"
	# modules.dep is made by the package's postinst, which dpkg -x skips
	/sbin/depmod -b "$dest" "$KVER"
fi
test -f "$dest/boot/vmlinuz-$KVER" || { echo "kernel: $deb has no boot/vmlinuz-$KVER" >&2; exit 1; }
touch "$dest/.unpacked-$KPKG_VERSION"

# The compiler needs the target kernel's BTF for kernel types
# (args[0]->field, casts to kernel structs).  Debian's vmlinuz is an
# xz-compressed bzImage; the ELF inside it carries .BTF.
vml="$dest/vmlinux"
if [ ! -s "$vml" ]; then
	echo "kernel: extracting vmlinux (for BTF) from vmlinuz"
	off=$(LC_ALL=C grep -m1 -abo -P '\xfd7zXZ\x00' "$dest/boot/vmlinuz-$KVER" | cut -d: -f1 || true)
	[ -n "$off" ] || { echo "kernel: no xz payload in vmlinuz-$KVER" >&2; exit 1; }
	tail -c +$((off + 1)) "$dest/boot/vmlinuz-$KVER" | xz -dc 2>/dev/null > "$vml.tmp" || true
	head -c 4 "$vml.tmp" | grep -q 'ELF' || { echo "kernel: vmlinux extraction failed" >&2; rm -f "$vml.tmp"; exit 1; }
	mv "$vml.tmp" "$vml"
fi
