#!/usr/bin/env bash
#
# tst.anon-early: in module mode kdt's first record precedes the first
# other module load of the initramfs.  The guest's /init (boot/init)
# loads kdt.ko first, then the QEMU helpers and the scenario's modules;
# the enabling tst.anon-early.d records BEGIN and every do_init_module()
# with timestamps.  In the guest, kdt -ae prints them and /proc/modules
# and the kernel log are saved.  Asserted:
#
#   - BEGIN's timestamp is earlier than every module initialisation's;
#   - every module loaded in this boot except kdt itself (/proc/modules)
#     has its record: none was initialised before the enabling started;
#   - the first record after BEGIN is the first module /init loads after
#     kdt.ko (pvpanic), and the records follow /init's load order.
#
# The figures (ms since boot: /init started, kdt.ko's enabling ready,
# BEGIN, the first other module, the last) are printed.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
d=$(dirname "$0")
work=$(mktemp -d "$KV_TOP/build/vm-anon-early.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --script "$d/tst.anon-early.d" --add-kdt --smp "$KV_SMP" \
    --load crc7,crc_itu_t,xor \
    --run 'mkdir -p /tmp/r && kdt -ae > /tmp/r/kdt.out 2> /tmp/r/kdt.err; echo $? > /tmp/r/kdt.rc; cut -d" " -f1 /proc/modules > /tmp/r/modules; dmesg > /tmp/r/dmesg; tar -cz -C /tmp/r . > /dev/ttyS1' \
    --guest-out "$work/res.tgz" --serial-log "$work/serial.log" \
    --workdir "$work/vm" --prefix 'guest| ' || kv_fail "boot failed"
mkdir -p "$work/r"
tar -xzf "$work/res.tgz" -C "$work/r" || kv_fail "the guest's results do not unpack"
r=$work/r
echo "--- kdt -ae (exit $(cat "$r/kdt.rc")):"
cat "$r/kdt.out" "$r/kdt.err"
echo "--- /proc/modules:"
cat "$r/modules"
[ "$(cat "$r/kdt.rc")" = 0 ] || kv_fail "kdt -ae exited $(cat "$r/kdt.rc")"

# /init's order: its QEMU helpers, then --load's
python3 - "$r" "pvpanic pvpanic_mmio qemu_fw_cfg crc7 crc_itu_t xor" \
    <<'EOF' || kv_fail "see above"
import re, sys
r, order = sys.argv[1], sys.argv[2].split()
begin, mods = None, []
for line in open(r + "/kdt.out"):
    w = line.split()
    if w[:1] == ["begin"]:
        begin = int(w[1])
    elif w[:1] == ["module"]:
        mods.append((int(w[1]), w[2]))
if begin is None:
    sys.exit("FAIL: no BEGIN record")
mods.sort()
loaded = set(open(r + "/modules").read().split()) - {"kdt"}
seen = [m for _, m in mods]
if sorted(seen) != sorted(loaded):
    sys.exit("FAIL: modules recorded %s, loaded in this boot (but kdt) %s"
             % (sorted(seen), sorted(loaded)))
if mods[0][0] <= begin:
    sys.exit("FAIL: module %s initialised at %d ns, before BEGIN at %d ns"
             % (mods[0][1], mods[0][0], begin))
if seen != order:
    sys.exit("FAIL: records in time order %s, /init's load order %s"
             % (seen, order))

def klog(rx):
    for line in open(r + "/dmesg"):
        m = re.match(r"^\[ *(\d+\.\d+)\] (.*)", line)
        if m and re.search(rx, m.group(2)):
            return float(m.group(1)) * 1000
    return None

ms = lambda ns: ns / 1e6
init = klog(r"Run /init as init process")
ready = klog(r"kdt: probes enabled")
print("figures (ms since boot):")
if init is not None:
    print("  /init started (kernel log)          %10.3f" % init)
if ready is not None:
    print("  kdt.ko armed its probes (kernel log) %10.3f" % ready)
print("  BEGIN, kdt's first record            %10.3f" % ms(begin))
print("  first other module: %-16s %10.3f  (%.3f ms after BEGIN)"
      % (mods[0][1], ms(mods[0][0]), ms(mods[0][0] - begin)))
print("  last module: %-23s %10.3f" % (mods[-1][1], ms(mods[-1][0])))
print("  %d of %d modules loaded after kdt.ko were recorded, none before it"
      % (len(seen), len(loaded)))
EOF
echo "PASS"
