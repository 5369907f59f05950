#!/usr/bin/env bash
# Fetch the DWARF vmlinux of the pinned Debian kernel (mk/versions.mk) for
# crash(8): apt-get download of linux-image-$KVER-dbg=$KPKG_VERSION, then
# only the one member ./usr/lib/debug/boot/vmlinux-$KVER out of its
# data.tar (tar --occurrence=1 stops reading the 858 MB xz stream as soon
# as it has it: ~8 s instead of ~45 s), into $1 (default build/kernel-dbg)
# as $1/vmlinux.
#
# Further arguments are modules, as paths under the package's
# lib/modules/$KVER/kernel/ (drivers/block/null_blk/null_blk.ko): each is
# extracted the same way (tar --occurrence=1 on its one member) into
# $KDT_DEB_CACHE/kernel-dbg-modules-$KVER-$KPKG_VERSION/kernel/..., kept
# there for later runs, and $1/modules is a symlink to that directory:
# what kdt-extract --modules takes (tests/vm/scenarios/
# tst.extract-modsyms.sh).  Only the modules asked for: the whole
# package unpacks to 5.6 GB.
#
# The .deb is kept in a host-wide cache, $KDT_DEB_CACHE (default
# /var/cache/kdt, or ~/.cache/kdt when that is not writable), so a fresh
# clone or a CI run does not download it again.  Idempotent: a complete
# extraction is left alone, a cached .deb is reused.  No network and no
# cached .deb is a failure with a message saying so.
set -euo pipefail
. "$(dirname "$0")/versions.sh"
dest=${1:-build/kernel-dbg}
pkg="linux-image-$KVER-dbg"
member="./usr/lib/debug/boot/vmlinux-$KVER"
stamp="$dest/.extracted-$KPKG_VERSION"

shift || true
cache=${KDT_DEB_CACHE:-/var/cache/kdt}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	cache="${XDG_CACHE_HOME:-$HOME/.cache}/kdt"
	mkdir -p "$cache"
fi
moddir="$cache/kernel-dbg-modules-$KVER-$KPKG_VERSION"
need=()
for m in "$@"; do
	[ -s "$moddir/kernel/$m" ] || need+=("$m")
done

if [ -f "$stamp" ] && [ -s "$dest/vmlinux" ] && [ ${#need[@]} -eq 0 ]; then
	echo "kernel-dbg: $pkg $KPKG_VERSION already in $dest/vmlinux"
	[ $# -eq 0 ] || ln -sfn "$moddir" "$dest/modules"
	exit 0
fi

deb="$cache/${pkg}_${KPKG_VERSION}_amd64.deb"
if [ ! -s "$deb" ]; then
	echo "kernel-dbg: downloading $pkg=$KPKG_VERSION (~860 MB) into $cache"
	tmp=$(mktemp -d "$cache/.dl.XXXXXX")
	t0=$(date +%s%N)
	if ! (cd "$tmp" && apt-get download -q "$pkg=$KPKG_VERSION"); then
		rm -rf "$tmp"
		echo "kernel-dbg: cannot download $pkg=$KPKG_VERSION with apt-get (no network, or apt does not know the version?); put the .deb at $deb by hand" >&2
		exit 1
	fi
	mv "$tmp"/"${pkg}"_*.deb "$deb"
	rm -rf "$tmp"
	echo "kernel-dbg: downloaded $(stat -c %s "$deb") bytes in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
else
	echo "kernel-dbg: using cached $deb"
fi

for m in "${need[@]}"; do
	echo "kernel-dbg: extracting module $m into $moddir"
	mmember="./usr/lib/debug/lib/modules/$KVER/kernel/$m"
	mkdir -p "$moddir"
	mtmp=$(mktemp -d "$moddir/.x.XXXXXX")
	dpkg-deb --fsys-tarfile "$deb" 2>/dev/null |
	    tar -x -C "$mtmp" --occurrence=1 "$mmember" || true
	if ! head -c 4 "$mtmp/$mmember" 2>/dev/null | grep -q ELF; then
		rm -rf "$mtmp"
		echo "kernel-dbg: $deb has no ELF $mmember (a module path under kernel/, e.g. drivers/block/null_blk/null_blk.ko?)" >&2
		exit 1
	fi
	mkdir -p "$(dirname "$moddir/kernel/$m")"
	mv "$mtmp/$mmember" "$moddir/kernel/$m"
	rm -rf "$mtmp"
done
[ $# -eq 0 ] || ln -sfn "$moddir" "$dest/modules"
if [ -f "$stamp" ] && [ -s "$dest/vmlinux" ]; then
	exit 0
fi

echo "kernel-dbg: extracting vmlinux-$KVER into $dest"
mkdir -p "$dest"
rm -rf "$dest/x"
mkdir "$dest/x"
# tar quits after the member, so dpkg-deb dies of SIGPIPE: expected.
dpkg-deb --fsys-tarfile "$deb" 2>/dev/null |
    tar -x -C "$dest/x" --occurrence=1 "$member" || true
if ! head -c 4 "$dest/x/$member" 2>/dev/null | grep -q ELF; then
	rm -rf "$dest/x"
	echo "kernel-dbg: $deb has no ELF $member (damaged download? delete it and retry)" >&2
	exit 1
fi
mv "$dest/x/$member" "$dest/vmlinux"
rm -rf "$dest/x"
touch "$stamp"
echo "kernel-dbg: $dest/vmlinux: $(stat -c %s "$dest/vmlinux") bytes"
