#!/usr/bin/env bash
# The second kernel kdt.ko is built and smoke-tested against: Debian's
# 6.12 (KVER_612 / KPKG_VERSION_612 in mk/versions.mk, next to the pinned
# 6.1).  Fetches its four packages with apt-get download -- the headers
# (arch and -common), linux-kbuild (fixdep, modpost, objtool) and the
# unsigned image -- and unpacks them with dpkg -x into one private tree,
# installing nothing system-wide.  Prints that tree's path on stdout (all
# messages go to stderr), so that callers can do
#
#   root=$(bash mk/kernel-612.sh)
#   make -C $root/usr/src/linux-headers-$KVER_612 M=... modules
#   tests/vm/kdt-vm --kernel-tree $root ...
#
# The tree, $KDT_DEB_CACHE/linux-$KVER_612-$KPKG_VERSION_612/ (default
# /var/cache/kdt, or ~/.cache/kdt when that is not writable, as
# mk/kernel-dbg.sh), holds:
#
#   debs/                   the four .debs, as downloaded (~123 MB)
#   root/usr/src/linux-headers-$KVER_612{,-common}, root/usr/lib/linux-kbuild-*
#                           the kbuild tree; the arch Makefile's absolute
#                           "include /usr/src/...-common/Makefile" is
#                           pointed into this tree (on every run)
#   root/boot/vmlinuz-$KVER_612, root/lib/modules/$KVER_612/
#                           the kernel and its modules, decompressed
#                           (Debian ships 6.12's as .ko.xz, which the
#                           guest's busybox modprobe cannot load) with
#                           modules.dep made by depmod -b
#   root/vmlinux            the headers' BTF-only vmlinux (kdt --btf)
#   root/.unpacked          stamp: the tree is complete
#
# Keyed by both versions, so a new pin is a new directory; idempotent and
# safe to run concurrently (flock).  Cold: ~10 s of download on
# deb.debian.org plus ~10-50 s of unpacking (17-60 s measured, by host
# load); warm: nothing.
set -euo pipefail
mk=$(dirname "$0")/versions.mk
KVER_612=$(sed -n 's/^KVER_612[[:space:]]*:=[[:space:]]*//p' "$mk")
KPKG_VERSION_612=$(sed -n 's/^KPKG_VERSION_612[[:space:]]*:=[[:space:]]*//p' "$mk")
[ -n "$KVER_612" ] && [ -n "$KPKG_VERSION_612" ] || {
	echo "kernel-612: $mk has no KVER_612/KPKG_VERSION_612 lines" >&2
	exit 1
}
abi=${KVER_612%-amd64}			# 6.12.107+deb12
pkgs="linux-headers-$KVER_612 linux-headers-$abi-common linux-kbuild-$abi
linux-image-$KVER_612-unsigned"

cache=${KDT_DEB_CACHE:-/var/cache/kdt}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	cache="${XDG_CACHE_HOME:-$HOME/.cache}/kdt"
	mkdir -p "$cache"
fi
top="$cache/linux-$KVER_612-$KPKG_VERSION_612"
root="$top/root"
mkdir -p "$top"
exec 9> "$top/.lock"
flock 9

hdr="$root/usr/src/linux-headers-$KVER_612"
common="$root/usr/src/linux-headers-$abi-common/Makefile"
# The arch headers' Makefile includes the -common tree by absolute path:
# point it at this tree (again, should the cache have moved).
fix_include()
{
	sed -i "s#^include .*/usr/src/linux-headers-$abi-common/Makefile\$#include $common#" \
	    "$hdr/Makefile"
	grep -qx "include $common" "$hdr/Makefile" || {
		echo "kernel-612: $hdr/Makefile does not include the -common tree as expected" >&2
		exit 1
	}
}

if [ -f "$root/.unpacked" ]; then
	fix_include
	echo "$root"
	exit 0
fi

t0=$(date +%s)
mkdir -p "$top/debs"
for p in $pkgs; do
	if ! ls "$top/debs/${p}_"*.deb > /dev/null 2>&1; then
		echo "kernel-612: downloading $p=$KPKG_VERSION_612 into $top/debs" >&2
		tmp=$(mktemp -d "$top/.dl.XXXXXX")
		if ! (cd "$tmp" && apt-get download -q "$p=$KPKG_VERSION_612") \
		    >&2; then
			rm -rf "$tmp"
			echo "kernel-612: cannot download $p=$KPKG_VERSION_612 with apt-get (no network, or apt does not know that version: apt-cache policy $p); put the .deb in $top/debs by hand" >&2
			exit 1
		fi
		mv "$tmp"/*.deb "$top/debs/"
		rm -rf "$tmp"
	fi
done

echo "kernel-612: unpacking into $root" >&2
rm -rf "$root"
mkdir -p "$root"
for d in "$top"/debs/*.deb; do
	dpkg -x "$d" "$root"
done
fix_include
test -f "$root/boot/vmlinuz-$KVER_612" || {
	echo "kernel-612: linux-image-$KVER_612-unsigned has no boot/vmlinuz-$KVER_612" >&2
	exit 1
}
find "$root/lib/modules/$KVER_612" -name '*.ko.xz' -print0 |
    xargs -0 -r -P2 -n64 xz -d
/sbin/depmod -b "$root" "$KVER_612"
head -c 4 "$hdr/vmlinux" 2>/dev/null | grep -q ELF || {
	echo "kernel-612: $hdr/vmlinux (the BTF kdt compiles against) missing" >&2
	exit 1
}
ln -sfn "usr/src/linux-headers-$KVER_612/vmlinux" "$root/vmlinux"
touch "$root/.unpacked"
echo "kernel-612: $root ready in $(($(date +%s) - t0)) s" >&2
echo "$root"
