#!/usr/bin/env bash
#
# tst.builtin-early: kdt built into the kernel traces the boot from before
# the first device initcall, and loses nothing until "kdt -a" claims it.
#
# boot/kdt-builtin builds (or takes from its cache) the small kernel with
# kdt grafted in as drivers/kdt.  The enabling, compiled with kdt -A and
# appended to the initramfs as an initrd trailer (kdt-vm --builtin, which
# uses kdt-initrd add), records every do_one_initcall() firing with its
# timestamp and the initcall's symbol (%a), and the entry of
# serial8250_init(), the 8250 driver's __init function, a device
# initcall.  Each initcall record carries a sequence number, counted in
# a thread-local variable of PID 1, which runs the initcalls one after
# the other: kdt prints one CPU's buffer after the other, and early in
# the boot timestamp has only jiffy resolution, so neither orders them.
# The kernel is not relocatable: System.map names the addresses.
# bufpolicy=fill: a record that does not fit is a counted drop,
# never an overwritten one.  The kernel also runs with initcall_debug, so
# its log lists, independently of kdt, every initcall it calls ("calling
# FN+0x0/0x.. @ 1", from the initcall_start tracepoint in do_one_initcall).
# In the guest, "kdt -ae" claims the state and prints it; its output, its
# exit status and dmesg come back over the second serial port.
#
# Checks:
#   1. "kdt -ae" exits 0 and reports no drop of any kind;
#   2. the sequence numbers are 1..N without a gap, and the initcalls kdt
#      recorded, in that order, are exactly those the kernel log says it
#      called after kdt's own kd_builtin_early: not one lost, none
#      invented, same order;
#   3. the first record precedes the first device initcall: System.map's
#      initcall table (__initcall_start, __initcall<N>_start bounds, one
#      entry symbol
#      __initcall__kmod_<mod>__<n>_<line>_<fn><level> per initcall) puts
#      the first recorded initcall at a level below 6 (device), and every
#      device-level initcall the kernel called was recorded;
#   4. serial8250_init's entry (init text) fired once, inside its own
#      initcall (same sequence number, later timestamp);
#   5. the trailer was taken off the initrd (the initramfs unpacked: the
#      guest ran its commands), and the log has no oops, BUG or WARNING
#      (the init-text probes die cleanly when init memory is freed).
# It prints the figures: initcalls in the table, called after kdt's,
# recorded, device-level recorded, the first record's position.
#
. "$(dirname "$0")/../lib.sh"

for f in "$KV_KDT" "$KV_TOP/build/bin/kdt-initrd"; do
	[ -x "$f" ] || kv_fail "${f#$KV_TOP/}: missing (run 'make tools')"
done
work=$(mktemp -d "$KV_TOP/build/vm-builtin-early.XXXXXX")
trap 'rm -rf "$work"' EXIT

t0=$(date +%s)
bz=$("$KV_TOP/boot/kdt-builtin") || kv_fail "boot/kdt-builtin failed"
echo "kernel with kdt built in: $bz (boot/kdt-builtin took $(( $(date +%s) - t0 )) s)"
map=$(dirname "$bz")/System.map

cat >"$work/early.d" <<'EOF'
#pragma D option bufpolicy=fill
fbt::do_one_initcall:entry
{
	self->n = self->n + 1;
	printf("initcall %d %d %x %a", self->n, timestamp, arg0, arg0);
}
fbt::serial8250_init:entry
{
	printf("driver %d %d %s", self->n, timestamp, probefunc);
}
EOF

"$KV_VM" --kernel "$bz" --builtin --script "$work/early.d" --add-kdt \
    --append initcall_debug --append log_buf_len=1M \
    --run 'rc=0; kdt -ae >/tmp/claim.out 2>/tmp/claim.err || rc=$?' \
    --run '{ echo "=== claim"; cat /tmp/claim.out; echo "=== stderr"; cat /tmp/claim.err; echo "=== rc $rc"; echo "=== dmesg"; dmesg; echo "=== end"; } >/dev/ttyS1' \
    --guest-out "$work/guest.out" --workdir "$work/vm" --timeout 180 \
    --expect 'kdt is built into the kernel' \
    --prefix 'guest| ' --quiet || kv_fail "boot failed"

python3 - "$work/guest.out" "$map" <<'EOF' || kv_fail "see above"
import re, sys

out, smap = open(sys.argv[1], errors="replace").read(), sys.argv[2]
ok = True


def fail(msg):
    global ok
    print("FAIL: " + msg)
    ok = False


def part(name):
    m = re.search(r"^=== %s\n(.*?)^=== " % name, out, re.S | re.M)
    if not m:
        print("FAIL: no '%s' part in the guest's output" % name)
        sys.exit(1)
    return m.group(1)


claim, err, dmesg = part("claim"), part("stderr"), part("dmesg")
rc = int(re.search(r"^=== rc (\d+)", out, re.M).group(1))
print("--- kdt -ae stderr:\n" + err + "--- kdt -ae exit status %d" % rc)
for line in dmesg.splitlines():
    if "kdt" in line and "calling" not in line and "initcall " not in line:
        print("guest log| " + line)

# 1. Claimed, nothing dropped.
if rc != 0:
    fail("kdt -ae exited %d" % rc)
if re.search(r"drop|error", err):
    fail("kdt -ae reported drops or errors (above)")


def fname(s):
    """foo+0x0/0x20 -> foo"""
    return re.sub(r"\+0x[0-9a-f]+(/0x[0-9a-f]+)?$", "", s)


syms = []
text = {}
for line in open(smap):
    a, t, name = line.split()[:3]
    syms.append((int(a, 16), name))
    if t in "tT":
        text.setdefault(int(a, 16), name)
syms.sort()

# 2. What kdt recorded vs what the kernel says it called after kdt.
recs = sorted((int(m.group(1)), int(m.group(2)), int(m.group(3), 16))
              for m in re.finditer(r"initcall (\d+) (\d+) ([0-9a-f]+)",
                                   claim))
drv = [(int(m.group(1)), int(m.group(2))) for m in
       re.finditer(r"driver (\d+) (\d+) serial8250_init", claim)]
if [n for n, _, _ in recs] != list(range(1, len(recs) + 1)):
    fail("the sequence numbers of the initcall records are not 1..%d"
         % len(recs))
traced = [text.get(a, "%x" % a) for _, _, a in recs]
# Not "calling  FN @ 1 for 0000:00:01.0": PCI fixups, which initcall_debug
# logs too, do not go through do_one_initcall.
called = [fname(m.group(1)) for m in
          re.finditer(r"^calling  (\S+) @ \d+$", dmesg, re.M)]
if "kd_builtin_early" not in called:
    fail("the kernel log has no 'calling kd_builtin_early' (initcall_debug "
         "lost, or kdt not built in)")
    sys.exit(1)
after = called[called.index("kd_builtin_early") + 1:]
if traced != after:
    n = next((i for i, (a, b) in enumerate(zip(traced, after)) if a != b),
             min(len(traced), len(after)))
    fail("kdt recorded %d initcalls, the kernel called %d after "
         "kd_builtin_early; first difference at #%d: kdt %s, kernel %s"
         % (len(traced), len(after), n,
            traced[n] if n < len(traced) else "(end)",
            after[n] if n < len(after) else "(end)"))

# 3. Levels from System.map's initcall table.
bounds = {}
for a, name in syms:
    m = re.match(r"__initcall(\d|rootfs|)_start$", name)
    if m:
        bounds[m.group(1) or "early"] = a
order = ["early", "0", "1", "2", "3", "4", "5", "rootfs", "6", "7"]
for lv in order:
    if lv not in bounds:
        fail("System.map: no __initcall%s_start" % (lv if lv != "early"
                                                     else ""))
        sys.exit(1)
end = next(a for a, n in syms if n == "__initcall_end")
names = {"early": "early", "0": "pure", "1": "core", "2": "postcore",
         "3": "arch", "4": "subsys", "5": "fs", "rootfs": "rootfs",
         "6": "device", "7": "late"}
level = {}
table = []
for a, name in syms:
    if not (bounds["early"] <= a < end) or not name.startswith("__initcall__"):
        continue
    lv = [l for l in order if bounds[l] <= a][-1]
    m = re.match(r"__initcall__kmod_.*?__\d+_\d+_(.+)" + lv + "s?$", name)
    if not m:
        fail("System.map: cannot read the initcall entry %s" % name)
        continue
    table.append((lv, m.group(1)))
    level.setdefault(m.group(1), lv)
if not traced:
    fail("kdt recorded no initcall at all")
    sys.exit(1)
first = traced[0]
if first not in level:
    fail("the first recorded initcall %s is not in System.map's table"
         % first)
    sys.exit(1)
dev_called = [f for f in called if level.get(f) == "6"]
dev_traced = [f for f in traced if level.get(f) == "6"]
if order.index(level[first]) >= order.index("6"):
    fail("the first record (%s) is at level %s, not before the device "
         "initcalls" % (first, names[level[first]]))
if not dev_called or dev_traced != dev_called:
    fail("device initcalls: kernel called %d, kdt recorded %d"
         % (len(dev_called), len(dev_traced)))
first_dev = called.index(dev_called[0]) if dev_called else -1

# 4. The built-in driver's __init function, at its entry.
if len(drv) != 1:
    fail("serial8250_init:entry fired %d times, expected once" % len(drv))
elif "serial8250_init" not in traced:
    fail("no do_one_initcall record for serial8250_init")
else:
    n, t, _ = recs[traced.index("serial8250_init")]
    if drv[0][0] != n or drv[0][1] < t:
        fail("serial8250_init:entry (initcall #%d, t=%d) is not inside its "
             "initcall (#%d, t=%d)" % (drv[0][0], drv[0][1], n, t))

# 5. The trailer came off; the init-text probes died cleanly.
if not re.search(r"kdt: initrd trailer: 0x[0-9a-f]+ bytes of DOF", dmesg):
    fail("the kernel log does not say kdt took the DOF off the initrd")
bad = [l for l in dmesg.splitlines()
       if re.search(r"Oops|BUG:|WARNING:|Call Trace|Initramfs unpacking "
                    r"failed", l)]
if bad:
    fail("kernel log:\n  " + "\n  ".join(bad[:10]))

print("initcalls in System.map's table: %d (device level: %d)"
      % (len(table), sum(1 for l, _ in table if l == "6")))
unknown = sorted(set(f for f in called if f not in level))
if unknown:
    print("called, not in the table (not initcall-table entries): %s"
          % " ".join(unknown))
print("initcalls the kernel called: %d; after kdt's kd_builtin_early "
      "(level %s): %d" % (len(called), names[level.get("kd_builtin_early",
                                                           "0")], len(after)))
print("initcalls kdt recorded: %d, device level %d of %d, drops 0"
      % (len(traced), len(dev_traced), len(dev_called)))
print("first record: %s, %s level, the kernel's initcall #%d of %d; first "
      "device initcall %s is #%d" % (first, names[level[first]],
                                     called.index(first) + 1, len(called),
                                     dev_called[0] if dev_called else "-",
                                     first_dev + 1))
if dev_traced:
    td = recs[traced.index(dev_traced[0])][1]
    print("timestamps: first record %.3f s, first device initcall %.3f s, "
          "serial8250_init entry %s s (monotonic, since boot)"
          % (recs[0][1] / 1e9, td / 1e9,
             "%.3f" % (drv[0][1] / 1e9) if drv else "-"))
sys.exit(0 if ok else 1)
EOF
echo "PASS"
