#!/usr/bin/env bash
#
# tst.kernel-612: kdt.ko on the second kernel, Debian's 6.12 (KVER_612 in
# mk/versions.mk).  The scenario fetches what it needs itself, so that it
# runs from a clean clone: mk/kernel-612.sh unpacks the 6.12 headers,
# kbuild and image under /var/cache/kdt (cold: 17-60 s, ~123 MB from
# deb.debian.org; warm: nothing), `make kmod-612` builds
# build/kmod-612/kdt.ko against them (~35 s from nothing), and one guest
# boots that kernel (~25-30 s; the whole run: ~35 s warm, ~100 s cold)
# with tests/vm/kdt-vm --kernel-tree, that kdt.ko and the anonymous
# enabling tst.kernel-612.d (compiled against 6.12's BTF).  The guest half,
# tst.kernel-612.run, says what runs there: the anonymous state claimed
# with kdt -a, BEGIN/END, exact counts through fbt, syscall and sdt, and
# printed aggregations (count() by key, lquantize()), and fbt arming a
# module's functions as it loads (the 6.4 module-memory change), the one
# function 6.12 cannot have an fbt probe on refused as matching nothing.
# (Probe IDs, in listings, are masked.)  Every command but that one
# (exit 1, its error on stderr) must exit 0 with nothing on stderr; the
# outputs together equal tst.kernel-612.out; the kernel log must show no
# warning or oops.
#
. "$(dirname "$0")/../lib.sh"

d=$(dirname "$0")
[ -x "$KV_KDT" ] || kv_fail "build/bin/kdt: missing (run 'make tools')"
t0=$(date +%s)
kver=$(sed -n 's/^KVER_612[[:space:]]*:=[[:space:]]*//p' \
    "$KV_TOP/mk/versions.mk")
root=$(bash "$KV_TOP/mk/kernel-612.sh") ||
    kv_fail "mk/kernel-612.sh could not fetch or unpack $kver"
make -C "$KV_TOP" --no-print-directory kmod-612 > /dev/null ||
    kv_fail "make kmod-612 failed"
kmod="$KV_TOP/build/kmod-612/kdt.ko"
modinfo -F vermagic "$kmod" | grep -q "^$kver " ||
    kv_fail "$kmod is not built for $kver"
echo "kernel $kver and kdt.ko ready after $(($(date +%s) - t0)) s"

work=$(mktemp -d "$KV_TOP/build/vm-kernel-612.XXXXXX")
trap 'rm -rf "$work"' EXIT
gcc -static -O2 -o "$work/getppid-loop" \
    "$KV_TOP/tests/vm/progs/getppid-loop.c" ||
    kv_fail "cannot build the static getppid-loop"

"$KV_VM" --kernel-tree "$root" --kmod "$kmod" --script "$d/tst.kernel-612.d" \
    --add-kdt --modules xor --add "$work/getppid-loop:/bin/getppid-loop" \
    --add "$d/tst.kernel-612.run:/k612.sh" --run 'sh /k612.sh' \
    --guest-out "$work/results.tgz" --serial-log "$work/serial.log" \
    --workdir "$work/vm" --prefix 'guest| ' --timeout 200 \
    --expect 'KDT-VM: kdt.ko loaded' || kv_fail "the 6.12 boot failed"
mkdir "$work/r"
tar -xzf "$work/results.tgz" -C "$work/r" ||
    kv_fail "the guest's results do not unpack"
if grep -E 'WARNING:|BUG:|Oops|Call Trace' "$work/serial.log"; then
	kv_fail "kernel warnings in the 6.12 boot"
fi

got="$work/got"
: > "$got"
for n in uname anon beginend counts agg modload xorlist; do
	kv_live_rc "$work/r" "$n" 0
	[ ! -s "$work/r/$n.err" ] || kv_fail "$n: unexpected stderr"
	echo "== $n" >> "$got"
	if [ "$n" = xorlist ]; then	# the probe ID varies: masked
		sed 's/^ *[0-9][0-9]* /ID /' "$work/r/$n.out"
	else
		cat "$work/r/$n.out"
	fi >> "$got"
done
kv_live_rc "$work/r" xorexit 1
{ echo "== xorexit (stderr)"; cat "$work/r/xorexit.err"; } >> "$got"
sed "s/@KVER_612@/$kver/" "$d/tst.kernel-612.out" |
    diff -u - "$got" || kv_fail "output differs from tst.kernel-612.out"
echo "PASS ($(($(date +%s) - t0)) s in all)"
