#!/usr/bin/env bash
#
# tst.builtin-trailer: kdt built into the kernel, with no usable enabling
# in the initrd: the kernel says why on the console and boots on.
#
# Three boots of boot/kdt-builtin's kernel, each with kdt.anon=1 and a
# region on the command line:
#
#   none    no trailer at all;
#   dofcrc  a trailer whose footer is sound but one byte of whose DOF was
#           changed after the CRC was taken (ITRL_DOFCRC);
#   baddof  a sound trailer carrying a DOF with version 99 in its header,
#           which the loader refuses (DOF_IDENT) -- kdt-initrd add would
#           refuse it too, so the trailer is made here, by the letter of
#           common/itrl.h.
#
# Each must: print "kdt: anonymous enabling dropped: <the reason>" on the
# console, unpack the initramfs (the damaged trailers are cut off: no
# "Initramfs unpacking failed"), run the guest's commands, where "kdt -ae"
# fails (exit 1) with the same reason: "rejected at boot: <reason>".
#
. "$(dirname "$0")/../lib.sh"

for f in "$KV_KDT" "$KV_TOP/build/bin/kdt-initrd"; do
	[ -x "$f" ] || kv_fail "${f#$KV_TOP/}: missing (run 'make tools')"
done
work=$(mktemp -d "$KV_TOP/build/vm-builtin-trailer.XXXXXX")
trap 'rm -rf "$work"' EXIT

bz=$("$KV_TOP/boot/kdt-builtin") || kv_fail "boot/kdt-builtin failed"

cat >"$work/t.d" <<'EOF'
BEGIN
{
	printf("never");
}
EOF
"$KV_KDT" -A -o "$work/anon" -s "$work/t.d" >/dev/null ||
    kv_fail "kdt -A exited $?"

python3 - "$work/anon/anon.dof" "$work" <<'EOF' || kv_fail "cannot make the trailers"
import struct, sys, zlib

dof = open(sys.argv[1], "rb").read()


def trailer(d, crc=None):
    """The DOF and the 32-byte footer of common/itrl.h, little-endian."""
    c = zlib.crc32(d) if crc is None else crc
    foot = struct.pack("<QIIII8s", len(d), c, 1, 32, 0, b"#KDTDOF\n")
    fc = zlib.crc32(foot)
    return d + struct.pack("<QIIII8s", len(d), c, 1, 32, fc, b"#KDTDOF\n")


bad = bytearray(dof)
bad[len(bad) // 2] ^= 0xff
open(sys.argv[2] + "/dofcrc.trailer", "wb").write(
    trailer(bytes(bad), zlib.crc32(dof)))
v99 = bytearray(dof)
v99[6] = 99                     # dofh_ident[DOF_ID_VERSION]
open(sys.argv[2] + "/baddof.trailer", "wb").write(trailer(bytes(v99)))
EOF

region='kdt.anon=1 kdt.region=16M@0x10000000 memmap=16M$0x10000000'
hex='0x[0-9a-f]+'
declare -A why=(
	[none]="the initrd \\($hex bytes\\) has no kdt trailer"
	[dofcrc]="initrd trailer: trailer DOF at offset $hex, $hex bytes: CRC-32 0x[0-9a-f]{8} does not match the stored 0x[0-9a-f]{8} \\(ITRL_DOFCRC"
	[baddof]="initrd trailer: DOF header: DOF version 99 is not 1 or 2 \\(DOF_IDENT"
)
for c in none dofcrc baddof; do
	echo "--- $c"
	extra=()
	[ "$c" = none ] || extra=(--initrd-append "$work/$c.trailer")
	"$KV_VM" --kernel "$bz" --builtin --append "$region" "${extra[@]}" \
	    --add-kdt --serial-log "$work/$c.log" --timeout 120 \
	    --run 'rc=0; kdt -ae >/tmp/o 2>/tmp/e || rc=$?' \
	    --run 'echo "claim exit $rc: $(cat /tmp/e)"' \
	    --expect "kdt: anonymous enabling dropped: ${why[$c]}" \
	    --expect "claim exit 1: .*rejected at boot: ${why[$c]}" \
	    --quiet >"$work/$c.vm" 2>&1 ||
	    { cat "$work/$c.vm"; kv_fail "$c: boot failed or a message is missing"; }
	grep -E 'kdt: |claim exit' "$work/$c.log"
	! grep -E 'Initramfs unpacking failed|Oops|BUG:|WARNING:' "$work/$c.log" ||
	    kv_fail "$c: the kernel log has the lines above"
done
echo "PASS"
