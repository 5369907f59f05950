#!/usr/bin/env bash
#
# tst.anon-bad: bad anonymous enablings are reported on the console with
# the reason and dropped, the boot always goes on, and "kdt -a" says why
# there is nothing to claim.  One boot: /init loads kdt.ko with a
# corrupted DOF (the at-boot case); then the guest reloads kdt.ko with
# each other bad case -- the module parameters are what /init passes from
# the kdt.* words of the command line, and request_firmware() reads
# /lib/firmware/kdt/anon.dof, which the guest replaces:
#
#   good      the valid DOF, region inside the memmap= reservation: active
#   noregion  kdt.anon=1 without kdt.region=
#   sysram    a region in System RAM (no memmap= for it)
#   device    a region on the PCI window at 0xfd000000 (not memory that
#             memmap= reserved)
#   small     a 64 KiB region: too small for the enabling's buffers
#   nomatch   a DOF whose only probe, fbt::kdt_no_such_function:entry,
#             matches nothing
#   flipN     the DOF with bits flipped in the header and section headers
#             (tests/vm/progs/baddof.c's idea): each is rejected with a
#             reason or, if harmless, enabled; the four that break the
#             magic, the version, the section count and a section's
#             offset must be rejected
#   noanon    kdt.ko loaded without anon=1; unloaded: no kdt.ko at all
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
d=$(dirname "$0")
work=$(mktemp -d "$KV_TOP/build/vm-anon-bad.XXXXXX")
trap 'rm -rf "$work"' EXIT
btf="--btf=$KV_TOP/build/kernel/vmlinux"

"$KV_KDT" -A -o "$work/good" -s "$d/tst.anon-bad.d" "$btf" > /dev/null ||
    kv_fail "kdt -A tst.anon-bad.d failed"
"$KV_KDT" -A -o "$work/nm" -n 'fbt::kdt_no_such_function:entry { trace(1); }' \
    "$btf" > /dev/null || kv_fail "kdt -A of the no-match program failed"
cat "$work/good/cmdline"
read -r _ rgn _ < "$work/good/cmdline"
rgn=${rgn#kdt.region=}
# The flips: fixed ones that must be rejected, then seeded pseudo-random
# single-bit flips over the header and section headers.
python3 - "$work/good/anon.dof" "$work/flips" <<'EOF'
import os, random, struct, sys
src, out = sys.argv[1], sys.argv[2]
dof = bytearray(open(src, "rb").read())
os.makedirs(out)
secoff, = struct.unpack_from("<Q", dof, 0x20)
secnum, = struct.unpack_from("<I", dof, 0x1c)
fixed = [(0, 0x01),                  # magic 0x7f 'D' 'O' 'F'
         (6, 0x80),                  # DOF_ID_VERSION
         (0x1c + 3, 0x40),           # dofh_secnum: huge
         (secoff + 24 + 5, 0x10)]    # section 0's dofs_offset: far away
rnd = random.Random(4242)
hdr = secoff + secnum * 32
flips = fixed + [(rnd.randrange(hdr), 1 << rnd.randrange(8)) for _ in range(12)]
for i, (off, bit) in enumerate(flips):
    v = bytearray(dof)
    v[off] ^= bit
    open(os.path.join(out, "flip%d.dof" % i), "wb").write(v)
    print("flip%d: byte 0x%x ^ 0x%02x" % (i, off, bit))
EOF
nflip=$(ls "$work/flips" | wc -l)
cp "$work/good/cmdline" "$work/flips/cmdline"

cat > "$work/guest.sh" <<EOF
set +e
R=/tmp/r
mkdir -p \$R
claim()
{
	kdt -ae > \$R/\$1.out 2> \$R/\$1.err
	echo \$? > \$R/\$1.rc
}
# t NAME PARAMS...: reload kdt.ko with PARAMS, ask kdt -ae
t()
{
	n=\$1
	shift
	rmmod kdt
	insmod /lib/modules/kdt.ko "\$@"
	echo \$? > \$R/\$n.insmod
	claim \$n
}
claim boot
cp /good.dof /lib/firmware/kdt/anon.dof
t good anon=1 region=$rgn
t noregion anon=1
t sysram anon=1 region=4M@0x8000000
t device anon=1 region=1M@0xfd000000
t small anon=1 region=64K@0x10000000
cp /nomatch.dof /lib/firmware/kdt/anon.dof
t nomatch anon=1 region=$rgn
i=0
while [ \$i -lt $nflip ]; do
	cp /flips/flip\$i.dof /lib/firmware/kdt/anon.dof
	t flip\$i anon=1 region=$rgn
	i=\$((i + 1))
done
# no kdt.anon, then no kdt.ko at all
rmmod kdt
insmod /lib/modules/kdt.ko
claim noanon
rmmod kdt
claim unloaded
tar -cz -C \$R . > /dev/ttyS1
EOF
adds=()
for f in "$work"/flips/flip*.dof; do
	adds+=(--add "$f:/flips/$(basename "$f")")
done
"$KV_VM" --dof "$work/flips/flip0.dof" --add-kdt \
    --add "$work/good/anon.dof:/good.dof" --add "$work/nm/anon.dof:/nomatch.dof" \
    "${adds[@]}" --add "$work/guest.sh:/guest.sh" --run 'sh /guest.sh' \
    --guest-out "$work/res.tgz" --serial-log "$work/serial.log" \
    --workdir "$work/vm" --prefix 'guest| ' ||
    kv_fail "boot failed: a bad enabling must not stop the boot"
mkdir -p "$work/r"
tar -xzf "$work/res.tgz" -C "$work/r" || kv_fail "the guest's results do not unpack"
r=$work/r
if grep -E 'WARNING:|BUG:|Call Trace|Oops' "$work/serial.log"; then
	kv_fail "kernel warnings (above)"
fi

# show NAME: what kdt -ae said, and the console's line for it
show()
{
	echo "--- $1: insmod $(cat "$r/$1.insmod" 2>/dev/null), kdt -ae exit $(cat "$r/$1.rc"):"
	cat "$r/$1.err"
}
# rejected NAME REGEX: kdt -ae names the reason (matching REGEX), the
# console showed "anonymous enabling dropped: <that reason>"
rejected()
{
	local why
	show "$1"
	[ "$(cat "$r/$1.rc")" = 1 ] || kv_fail "$1: kdt -ae exited $(cat "$r/$1.rc")"
	[ ! -f "$r/$1.insmod" ] || [ "$(cat "$r/$1.insmod")" = 0 ] ||
	    kv_fail "$1: insmod kdt.ko failed: the module must load to report"
	why=$(sed -n 's/^kdt: no anonymous state: the anonymous enabling was rejected at boot: \(.*\); see kdt(1), ANONYMOUS TRACING$/\1/p' "$r/$1.err")
	[ -n "$why" ] || kv_fail "$1: kdt -ae does not say the enabling was rejected and why"
	echo "$why" | grep -Eq "$2" || kv_fail "$1: reason not /$2/"
	grep -qF "kdt: anonymous enabling dropped: $why" "$work/serial.log" ||
	    kv_fail "$1: the console does not show the reason"
}
rejected boot 'DOF'
show good
[ "$(cat "$r/good.rc")" = 0 ] || kv_fail "good: kdt -ae exited $(cat "$r/good.rc")"
grep -qx 'anon begin' "$r/good.out" || kv_fail "good: no BEGIN record"
rejected noregion 'needs a region: add kdt.region=SIZE@PHYS and memmap=SIZE\$PHYS'
rejected sysram 'kdt.region=4M@0x8000000: \[0x8000000, 0x8400000\) overlaps System RAM; reserve it with memmap='
rejected device 'kdt.region=1M@0xfd000000: \[0xfd000000, 0xfd100000\) is not all reserved memory'
rejected small 'region|bytes'
rejected nomatch 'no probe description matched a probe'
i=0
while [ $i -lt "$nflip" ]; do
	n=flip$i
	if [ $i -lt 4 ]; then
		rejected $n 'DOF|dof'
	elif [ "$(cat "$r/$n.rc")" = 0 ]; then
		show $n
		echo "($n: harmless, enabled)"
	else
		rejected $n '.'
	fi
	i=$((i + 1))
done
show noanon
echo "kdt: no anonymous state: the kernel was not booted with kdt.anon=1 (kdt -A installs an enabling); see kdt(1), ANONYMOUS TRACING" |
    diff -u - "$r/noanon.err" || kv_fail "noanon: not the no-kdt.anon message"
show unloaded
echo "kdt: no anonymous state: kdt.ko is not loaded (/dev/kdt is missing); see kdt(1), ANONYMOUS TRACING" |
    diff -u - "$r/unloaded.err" || kv_fail "unloaded: not the not-loaded message"
echo "PASS"
