#!/usr/bin/env bash
#
# tst.anon-warm-reboot: the previous boot's region survives a warm reboot
# and kdt reads it while the new boot traces.  One QEMU, three boots
# (kdt-vm --boots 3, panic=1), the enabling tst.anon-warm-reboot.d; the
# guest tells the boots apart by /dev/kdt-previous and what it holds:
#
#   boot 1: no /dev/kdt-previous (cold boot: kdt -a --previous says so in
#           one line); load crc7; reboot -f.
#   boot 2: kdt.ko found boot 1's region and kept it as /dev/kdt-previous
#           before this boot's enabling reused the region: kdt -a
#           --previous and kdt-extract /dev/kdt-previous print boot 1's
#           records (crc7); the new enabling records this boot: kdt -a
#           claims it in the background and, at aggrate (100 ms),
#           snapshots the aggregation (the modules /init loaded before
#           the claim) and writes its totals into the region some ten
#           times; then xor loads (kdt -a sees it), and a panic (sysrq
#           c) with kdt -a still running; panic=1 reboots.
#   boot 3: /dev/kdt-previous holds boot 2's records (xor, not crc7) and
#           its aggregation as the claimed kdt -a had it: every module
#           of the boot counted once, those from before the claim too
#           (the region's totals and in-region spares: kmod/kd_cs.c
#           kd_anon_aggrgn; without them the snapshots took the
#           pre-claim counts out of the region).
#
# kdt -a --previous and kdt-extract on the device agree byte for byte, the
# raw image copied out of the guest decodes the same on the host, and the
# records, sorted (CPU order varies), and the aggregations equal
# tst.anon-warm-reboot.out.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
d=$(dirname "$0")
work=$(mktemp -d "$KV_TOP/build/vm-anon-warm.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/guest.sh" <<'EOF'
set +e
R=/tmp/r
mkdir -p $R
wait_for()
{
	i=0
	while ! grep -qx "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 300 ] && return 1
		sleep 0.1
	done
	return 0
}
# prev B: what this boot finds of the previous one
prev()
{
	kdt -a --previous > $1/prev.out 2> $1/prev.err
	echo $? > $1/prev.rc
	kdt-extract /dev/kdt-previous > $1/extract.out 2> $1/extract.err
	echo $? > $1/extract.rc
	cat /dev/kdt-previous > $1/prev.img
}
if [ ! -e /dev/kdt-previous ]; then
	B=$R/b1
	mkdir -p $B
	prev $B
	modprobe crc7
	tar -cz -C $R b1 > /dev/ttyS1
	sleep 1
	reboot -f
	sleep 30
fi
kdt -a --previous > /tmp/p.out 2>&1
if ! grep -qx 'init module xor' /tmp/p.out; then
	B=$R/b2
	mkdir -p $B
	prev $B
	kdt -a > $B/live.out 2> $B/live.err &
	# the claimed kdt -a snapshots and writes totals every 100 ms
	wait_for $B/live.out 'init module pvpanic_mmio'
	sleep 1
	modprobe xor
	wait_for $B/live.out 'init module xor' && echo ok > $B/live.seen
	tar -cz -C $R b2 > /dev/ttyS1
	sleep 1
	echo c > /proc/sysrq-trigger
	sleep 30
fi
B=$R/b3
mkdir -p $B
prev $B
tar -cz -C $R b3 > /dev/ttyS1
EOF

"$KV_VM" --script "$d/tst.anon-warm-reboot.d" --add-kdt --boots 3 \
    --append panic=1 --modules crc7,xor \
    --add-bin "$KV_EXTRACT:/bin/kdt-extract" --add "$work/guest.sh:/guest.sh" \
    --run 'sh /guest.sh' --guest-out "$work/res.tgz" \
    --serial-log "$work/serial.log" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
mkdir -p "$work/r"
tar -xzi -f "$work/res.tgz" -C "$work/r" ||
    kv_fail "the guest's results do not unpack"
r=$work/r
for f in $(cd "$r" && find . -type f ! -name '*.img' | sort); do
	echo "--- ${f#./}:"
	cat "$r/$f"
done
if grep -E 'WARNING:|BUG:' "$work/serial.log" ||
    [ "$(grep -c 'Call Trace' "$work/serial.log")" != 1 ]; then
	kv_fail "kernel warnings other than boot 2's panic (serial log above)"
fi

# boot 1: a cold boot has no previous region
[ "$(cat "$r/b1/prev.rc")" = 1 ] || kv_fail "boot 1: kdt -a --previous exited $(cat "$r/b1/prev.rc")"
echo "kdt: no previous boot's region: the region at phys 0x10000000 holds no kdt region header (cold boot, or never written); see kdt(1), ANONYMOUS TRACING" |
    diff -u - "$r/b1/prev.err" || kv_fail "boot 1: not the no-previous-region message"
[ "$(cat "$r/b1/extract.rc")" = 1 ] || kv_fail "boot 1: kdt-extract exited $(cat "$r/b1/extract.rc")"
grep -q 'kdt-extract: /dev/kdt-previous: no previous boot.s region' "$r/b1/extract.err" ||
    kv_fail "boot 1: kdt-extract does not say there is no previous region"

# recs FILE: the records (up to the first blank line), sorted; aggs FILE:
# the aggregation after them, as printed
recs()
{
	awk 'NF == 0 { exit } { print }' "$1" | sort
}
aggs()
{
	awk 'a && NF != 0 { print } NF == 0 { a = 1 }' "$1"
}

# boots 2 and 3: the previous boot's records, three ways
{
	echo "--- boot 2: kdt -a --previous (boot 1's records; it ended with reboot -f)"
	recs "$r/b2/prev.out"
	echo "--- its aggregation (never claimed)"
	aggs "$r/b2/prev.out"
	echo "--- boot 3: kdt -a --previous (boot 2's records; it ended with a panic, panic=1)"
	recs "$r/b3/prev.out"
	echo "--- its aggregation (claimed by kdt -a: totals, then xor)"
	aggs "$r/b3/prev.out"
} > "$work/got.out"
diff -u "$d/tst.anon-warm-reboot.out" "$work/got.out" ||
    kv_fail "the previous boots' records are not the expected ones"
for b in b2 b3; do
	[ "$(cat "$r/$b/prev.rc")" = 0 ] || kv_fail "$b: kdt -a --previous exited $(cat "$r/$b/prev.rc")"
	[ "$(cat "$r/$b/extract.rc")" = 0 ] || kv_fail "$b: kdt-extract exited $(cat "$r/$b/extract.rc")"
	diff -u "$r/$b/prev.out" "$r/$b/extract.out" ||
	    kv_fail "$b: kdt -a --previous and kdt-extract /dev/kdt-previous differ"
	"$KV_EXTRACT" "$r/$b/prev.img" > "$work/$b.host" ||
	    kv_fail "$b: kdt-extract on the host cannot read the image"
	diff -u "$r/$b/prev.out" "$work/$b.host" ||
	    kv_fail "$b: the image decodes differently on the host"
done
grep -Eq "^kdt-extract: /dev/kdt-previous: the previous boot's region, kept by kdt.ko: written by kernel [^ ]+, boot id [0-9a-f]{32}, set up [0-9-]+ [0-9:]+ UTC, at phys 0x10000000$" \
    "$r/b2/extract.err" || kv_fail "boot 2: kdt-extract does not say what /dev/kdt-previous is"
[ -f "$r/b2/live.seen" ] ||
    kv_fail "boot 2: the new boot's tracing did not record xor"
# boot 2's region: the claimed kdt -a wrote its totals (rgn.h, "Aggregation
# totals": rm_aggtot_off at rgn_meta + 128, each slot's at_seq at + 8)
# more than once, so the numbers above came through them
python3 - "$r/b3/prev.img" <<'EOF2' || kv_fail "boot 2's region: no totals written twice by the claimed kdt -a"
import struct, sys
img = open(sys.argv[1], "rb").read()
meta = struct.unpack_from("<Q", img, 72)[0]
off, size = struct.unpack_from("<QQ", img, meta + 128)
seq = [struct.unpack_from("<IIQ", img, off + i * size // 2)
       for i in (0, 1)] if off else []
seq = [s for m, _, s in seq if m == 0x746f746b]
print("boot 2's region: totals area at 0x%x, slot writes %s" % (off, seq))
sys.exit(0 if seq and max(seq) >= 2 else 1)
EOF2

# A previous region kdt.ko cannot copy (160 MiB: more than a quarter of
# the guest's 512 MiB) stays in place: boot 2 reads it, and neither its
# anonymous enabling nor a -x region session may overwrite it.
"$KV_KDT" -A -o "$work/big" -s "$d/tst.anon-warm-reboot.d" \
    "--btf=$KV_TOP/build/kernel/vmlinux" > /dev/null || kv_fail "kdt -A failed"
echo 'kdt.anon=1 kdt.region=160M@0x10000000 memmap=160M$0x10000000' \
    > "$work/big/cmdline"
cat > "$work/big.sh" <<'EOF'
set +e
R=/tmp/r
mkdir -p $R/big
if [ ! -e /dev/kdt-previous ]; then
	modprobe crc7
	reboot -f
	sleep 30
fi
kdt -a > $R/big/claim.out 2> $R/big/claim.err
echo $? > $R/big/claim.rc
kdt -a --previous > $R/big/prev.out 2> $R/big/prev.err
echo $? > $R/big/prev.rc
kdt -x region -n 'BEGIN { exit(0); }' > $R/big/region.out 2> $R/big/region.err
echo $? > $R/big/region.rc
tar -cz -C $R big > /dev/ttyS1
EOF
"$KV_VM" --dof "$work/big/anon.dof" --add-kdt --boots 2 --modules crc7 \
    --add "$work/big.sh:/guest.sh" --run 'sh /guest.sh' \
    --guest-out "$work/big.tgz" --serial-log "$work/big.log" \
    --workdir "$work/vmbig" --prefix 'guest| ' ||
    kv_fail "big-region boots failed"
tar -xzf "$work/big.tgz" -C "$r" || kv_fail "the big-region results do not unpack"
for f in claim prev region; do
	echo "--- big/$f: exit $(cat "$r/big/$f.rc")"
	cat "$r/big/$f.out" "$r/big/$f.err"
done
held="the previous boot's region \(0xa000000 bytes at phys 0x10000000\) cannot be copied \(limit 0x[0-9a-f]+ bytes, or no memory\): it is left in place as /dev/kdt-previous and this boot will not record into it"
[ "$(cat "$r/big/claim.rc")" = 1 ] || kv_fail "big: kdt -a exited $(cat "$r/big/claim.rc")"
grep -Eqx "kdt: no anonymous state: the anonymous enabling was rejected at boot: $held; see kdt\\(1\\), ANONYMOUS TRACING" \
    "$r/big/claim.err" || kv_fail "big: kdt -a does not say the region is held"
grep -Eq "kdt: anonymous enabling dropped: $held" "$work/big.log" ||
    kv_fail "big: the console does not say the region is held"
[ "$(cat "$r/big/prev.rc")" = 0 ] || kv_fail "big: kdt -a --previous exited $(cat "$r/big/prev.rc")"
diff -u <(sed -n '2,6p' "$d/tst.anon-warm-reboot.out") \
    <(recs "$r/big/prev.out") ||
    kv_fail "big: not boot 1's records, read in place"
diff -u <(sed -n '8,11p' "$d/tst.anon-warm-reboot.out") \
    <(aggs "$r/big/prev.out") ||
    kv_fail "big: not boot 1's aggregation, read in place"
[ "$(cat "$r/big/region.rc")" = 1 ] || kv_fail "big: kdt -x region exited $(cat "$r/big/region.rc")"
grep -Eq "could not enable tracing: -x region: $held|could not enable tracing: $held" \
    "$r/big/region.err" || kv_fail "big: -x region was not refused for the held region"
echo "PASS"
