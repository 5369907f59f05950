#!/usr/bin/env bash
#
# tst.extract-modsyms: addresses inside a loadable module resolve in a
# dead kernel's trace from the region alone (rgn.h, "module table"), with
# no System.map, vmlinux or kallsyms of the crashed boot.  An anonymous
# enabling probes a function of null_blk, a module the guest loads only
# after kdt.ko set the region up (so kdt.ko's module notifier records
# it; BEGIN keeps the enabling, which matches nothing else at boot, from
# being dropped).  null_blk's partition scan, which its module init starts
# (null_add_dev -> add_disk -> ... -> null_handle_cmd), and a dd from
# /dev/nullb0 fire it.  The guest saves its /proc/kallsyms and panics; on
# the QMP dump kdt-extract, given no symbol file, must print the stacks'
# module frames -- the probe site null_blk`null_handle_cmd+0x1, the
# return address null_blk`null_add_dev+0xoff below a run of core-kernel
# frames, and null_blk`null_init+0xoff in the module's init text, which
# the kernel freed long before the panic -- with no complaint about the
# table; the very
# same null_blk frames must come out of --kallsyms with the guest's own
# kallsyms (the truth).  Then with --vmlinux (the -dbg package's vmlinux)
# every core-kernel frame must carry its source line, [FILE:LINE], equal
# to what binutils' addr2line says for that frame, and the module frames
# must be unchanged.  Last, --modules with the -dbg package's null_blk.ko
# (mk/kernel-dbg.sh extracts just that module once into the host cache):
# every null_blk frame, core text and init text alike, must carry the
# line "addr2line -j SECTION -e null_blk.ko OFFSET" gives.  Build ids
# (rgn.h, "Build ids"): kdt-extract must say that the vmlinux has the
# build id the region recorded (readelf -n's) and that null_blk.ko is
# the region's build; a copy of null_blk.ko with one byte of its build
# id changed is another build -- one line, and no source lines for
# null_blk -- and that copy given as --vmlinux is refused (exit 2).
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-modsyms.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/mod.d" <<'D'
#pragma D option quiet
BEGIN
{
	printf("begin\n");
}

fbt:null_blk:null_handle_cmd:entry
{
	printf("%s\n", probefunc);
	stack();
}
D
"$KV_VM" --script "$work/mod.d" --modules null_blk \
    --run 'modprobe null_blk; dd if=/dev/nullb0 of=/dev/null bs=4096 count=4 2>/dev/null; grep -E "\[(null_blk|kdt)\]" /proc/kallsyms > /dev/ttyS1' \
    --guest-out "$work/kallsyms" --panic --dump "$work/dump.elf" \
    --serial-log "$work/serial.log" --workdir "$work/vm" --quiet ||
    { tail -30 "$work/serial.log"; kv_fail "boot failed"; }
grep -q 'null_handle_cmd.*\[null_blk\]' "$work/kallsyms" ||
    kv_fail "the guest's kallsyms has no null_blk symbols"

# no --symbols and no --kallsyms: the module names come from the region
"$KV_EXTRACT" "$work/dump.elf" > "$work/reg.out" 2> "$work/reg.err" ||
    { cat "$work/reg.err"; kv_fail "kdt-extract failed"; }
echo "--- region only:"
cat "$work/reg.err"
head -40 "$work/reg.out"
grep -q "module table" "$work/reg.err" &&
    kv_fail "the module table had problems (above)"
grep -Eq '^ +null_blk`null_handle_cmd\+0x1$' "$work/reg.out" ||
    kv_fail "no null_blk\`null_handle_cmd+0x1 frame (the probe site)"
grep -Eq '^ +null_blk`null_add_dev\+0x[0-9a-f]+$' "$work/reg.out" ||
    kv_fail "no null_blk\`null_add_dev+0xoff frame (a return address)"
grep -Eq '^ +null_blk`null_init\+0x[0-9a-f]+$' "$work/reg.out" ||
    kv_fail "no null_blk\`null_init+0xoff frame (init text)"

# the truth: the crashed boot's own kallsyms names the same module frames
"$KV_EXTRACT" --kallsyms "$work/kallsyms" "$work/dump.elf" \
    > "$work/ks.out" 2> "$work/ks.err" ||
    { cat "$work/ks.err"; kv_fail "kdt-extract --kallsyms failed"; }
grep -o 'null_blk`[^ ]*' "$work/reg.out" > "$work/reg.mod"
grep -o 'null_blk`[^ ]*' "$work/ks.out" > "$work/ks.mod"
[ -s "$work/reg.mod" ] || kv_fail "no null_blk frames at all"
diff "$work/ks.mod" "$work/reg.mod" ||
    kv_fail "module frames from the region differ from the guest's kallsyms"
echo "$(wc -l < "$work/reg.mod") null_blk names agree with the guest's kallsyms"

# --vmlinux: the -dbg package's vmlinux (mk/kernel-dbg.sh, as
# tst.extract-symbols uses) names the core frames and gives each its
# source line through libdwarf; addr2line on the same file is the oracle
# for every one (the line of the call: the return address - 1)
bash "$KV_TOP/mk/kernel-dbg.sh" "$KV_TOP/build/kernel-dbg" ||
    kv_fail "no vmlinux with DWARF: mk/kernel-dbg.sh failed (above)"
vmlinux="$KV_TOP/build/kernel-dbg/vmlinux"
"$KV_EXTRACT" --vmlinux "$vmlinux" "$work/dump.elf" > "$work/dw.out" \
    2> "$work/dw.err" || { cat "$work/dw.err"; kv_fail "kdt-extract --vmlinux failed"; }
echo "--- --vmlinux:"
cat "$work/dw.err"
head -24 "$work/dw.out"
grep -q "source lines of kernel frames from $vmlinux (DWARF)" "$work/dw.err" ||
    kv_fail "kdt-extract does not say where the source lines came from"
grep -o 'null_blk`[^ ]*' "$work/dw.out" | diff "$work/reg.mod" - ||
    kv_fail "--vmlinux changed the module frames"
nm "$vmlinux" > "$work/vmlinux.nm" || kv_fail "nm $vmlinux failed"
python3 - "$work/dw.out" "$work/vmlinux.nm" "$vmlinux" <<'PY' ||
import re, subprocess, sys
out, nmfile, vmlinux = sys.argv[1:]
addr = {}
for l in open(nmfile):
    f = l.split()
    if len(f) == 3 and f[1] in "tTW":
        addr.setdefault(f[2], int(f[0], 16))
text = open(out).read()
frames = sorted(set(re.findall(
    r"^ +vmlinux`([\w.]+)\+0x([0-9a-f]+) \[([^]]+)\]$", text, re.M)))
plain = re.findall(r"^ +vmlinux`\S+$", text, re.M)
if len(frames) < 5:
    sys.exit("FAIL: only %d core frames with a source line" % len(frames))
if plain:
    sys.exit("FAIL: core frames without a source line: %s" % plain[:3])
pcs = ["0x%x" % (addr[f] + int(o, 16) - 1) for f, o, _ in frames]
want = subprocess.run(["addr2line", "-e", vmlinux] + pcs,
                      capture_output=True, text=True,
                      check=True).stdout.splitlines()
for (f, o, got), w in zip(frames, want):
    w = re.sub(r" \(discriminator \d+\)$", "", w)
    if not (w == got or w.endswith("/" + got)):
        sys.exit("FAIL: %s+0x%s: kdt-extract [%s], addr2line %s"
                 % (f, o, got, w))
print("%d core frames: source lines agree with addr2line" % len(frames))
PY
    kv_fail "source lines (above)"

# --modules: lines of the module frames from the relocatable null_blk.ko
bash "$KV_TOP/mk/kernel-dbg.sh" "$KV_TOP/build/kernel-dbg" \
    drivers/block/null_blk/null_blk.ko ||
    kv_fail "no null_blk.ko with DWARF: mk/kernel-dbg.sh failed (above)"
mods="$KV_TOP/build/kernel-dbg/modules"
ko="$mods/kernel/drivers/block/null_blk/null_blk.ko"
"$KV_EXTRACT" --vmlinux "$vmlinux" --modules "$mods" "$work/dump.elf" \
    > "$work/md.out" 2> "$work/md.err" ||
    { cat "$work/md.err"; kv_fail "kdt-extract --modules failed"; }
echo "--- --vmlinux --modules:"
cat "$work/md.err"
grep 'null_blk`' "$work/md.out" | head -8
grep -q "source lines of module frames from $mods (DWARF): 1 of the region's [0-9]* modules (1 had a .ko there)" \
    "$work/md.err" || kv_fail "kdt-extract does not say null_blk.ko was used"
grep -q -- "--modules:" "$work/md.err" && kv_fail "warnings about the .ko (above)"
grep -o 'null_blk`[^ ]*' "$work/md.out" | diff "$work/reg.mod" - ||
    kv_fail "--modules changed the module frames' names"
objdump -t "$ko" > "$work/ko.syms" || kv_fail "objdump -t $ko failed"
python3 - "$work/md.out" "$work/ko.syms" "$ko" <<'PY' ||
import re, subprocess, sys
out, symfile, ko = sys.argv[1:]
sym = {}
for l in open(symfile):
    m = re.match(r"^([0-9a-f]+) .{7} (\S+)\t[0-9a-f]+ (\S+)$", l.rstrip())
    if m and m.group(2).startswith("."):
        sym.setdefault(m.group(3), (m.group(2), int(m.group(1), 16)))
text = open(out).read()
frames = sorted(set(re.findall(
    r"^ +null_blk`([\w.]+)\+0x([0-9a-f]+) \[([^]]+)\]$", text, re.M)))
plain = re.findall(r"^ +null_blk`\S+$", text, re.M)
if plain:
    sys.exit("FAIL: null_blk frames without a source line: %s" % plain[:3])
if not any(f == "null_init" for f, _, _ in frames):
    sys.exit("FAIL: no null_init frame (init text) with a line")
if len(frames) < 3:
    sys.exit("FAIL: only %d null_blk frames with a line" % len(frames))
for f, o, got in frames:
    sec, val = sym[f]
    w = subprocess.run(["addr2line", "-j", sec, "-e", ko,
                        "0x%x" % (val + int(o, 16) - 1)],
                       capture_output=True, text=True,
                       check=True).stdout.strip()
    w = re.sub(r" \(discriminator \d+\)$", "", w)
    if not (w == got or w.endswith("/" + got)):
        sys.exit("FAIL: null_blk`%s+0x%s (%s): kdt-extract [%s], addr2line %s"
                 % (f, o, sec, got, w))
    print("null_blk`%s+0x%s: %s (%s)" % (f, o, got, sec))
print("%d null_blk frames: source lines agree with addr2line" % len(frames))
PY
    kv_fail "module source lines (above)"

# build ids: both files checked against what kdt.ko recorded
kid=$(readelf -n "$vmlinux" | sed -n 's/^ *Build ID: //p' | head -1)
[ -n "$kid" ] || kv_fail "readelf -n $vmlinux shows no build id"
grep -q "its build id $kid is the region's" "$work/md.err" ||
    kv_fail "kdt-extract did not match --vmlinux's build id $kid with the region's"
grep -q "build ids: 1 the region's, 0 of another build, 0 not recorded" \
    "$work/md.err" || kv_fail "null_blk.ko's build id is not the region's"
# another build of null_blk: its build id's last byte changed
mkdir -p "$work/other"
cp "$ko" "$work/other/null_blk.ko"
python3 - "$work/other/null_blk.ko" <<'PY' ||
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
def sh(i):
    return struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize)
strtab = sh(shstrndx)[4]
for i in range(shnum):
    s = sh(i)
    name = bytes(b[strtab + s[0]:b.index(0, strtab + s[0])])
    if name == b".note.gnu.build-id":
        namesz, descsz = struct.unpack_from("<II", b, s[4])
        b[s[4] + 12 + ((namesz + 3) & ~3) + descsz - 1] ^= 0xff
        open(p, "wb").write(b)
        sys.exit(0)
sys.exit("no .note.gnu.build-id section")
PY
    kv_fail "cannot make another build of null_blk.ko"
"$KV_EXTRACT" --vmlinux "$vmlinux" --modules "$work/other" "$work/dump.elf" \
    > "$work/ob.out" 2> "$work/ob.err" ||
    { cat "$work/ob.err"; kv_fail "kdt-extract --modules (another build) failed"; }
echo "--- --modules with another build of null_blk.ko:"
cat "$work/ob.err"
[ "$(grep -c -- "--modules:" "$work/ob.err")" = 1 ] ||
    kv_fail "not one line about the other build"
grep -q -- "--modules: $work/other/null_blk.ko: another build of module null_blk (build id [0-9a-f]*, the region records [0-9a-f]*); no source lines for module null_blk" \
    "$work/ob.err" || kv_fail "the other build of null_blk.ko was not named"
grep -E '^ +null_blk`\S+ \[' "$work/ob.out" &&
    kv_fail "null_blk frames got source lines from another build"
grep -o 'null_blk`[^ ]*' "$work/ob.out" | diff "$work/reg.mod" - ||
    kv_fail "the other build changed the module frames' names"
# and as --vmlinux: refused, naming it and both ids
rv=0
"$KV_EXTRACT" --vmlinux "$work/other/null_blk.ko" "$work/dump.elf" \
    > /dev/null 2> "$work/ov.err" || rv=$?
cat "$work/ov.err"
[ "$rv" = 2 ] || kv_fail "kdt-extract --vmlinux of another build: exit $rv, not 2"
grep -q "$work/other/null_blk.ko: not the build of kernel .* that wrote the region: the file's build id is [0-9a-f]*, the region records $kid" \
    "$work/ov.err" || kv_fail "the wrong --vmlinux was not refused by its build id"
echo "PASS"
