#!/usr/bin/env bash
#
# tst.toolkit: the scripts of toolkit/ do what their headers say.
#
# On the host every toolkit/*.d must have its header (what question it
# answers, "Run it", "Output") and compile alone with kdt -e.  Then two
# boots:
#
# usdt-events.d (live, user space) runs in the shared live boot
# (tests/vm/progs/live.sh) on a workload with a USDT probe.
#
# Boot 1: the boot-time scripts concatenated into one anonymous enabling
# (their variables and aggregations have per-script prefixes so that
# they can be combined; their options agree): initcall-latency,
# module-load, driver-probe, early-userspace, root-mount, early-alloc,
# boot-irqs, lock-contention.  /init loads the QEMU helpers and the demo
# modules; the commands mount a tmpfs, try a filesystem type that does
# not exist, insmod an already loaded module again (load_module fails
# with -EEXIST), and run "kdt -ae --format=json" (which ends the state);
# then the guest panics and is dumped.  Asserted from the guest's JSON:
#   - initcall-latency: one "initcall" line per module loaded after
#     kdt.ko that has an init function (crc7 and crc_itu_t are tables),
#     each ret 0 and a sane time (< 10 s);
#   - module-load: one "module NAME init" line per such module with ret
#     0, the second insmod's load failure with -17 (EEXIST), a sum per
#     module;
#   - driver-probe: the helpers' drivers were probed (a "probe" line for
#     fw_cfg), ret values are integers;
#   - early-userspace: the exec of /bin/kdt, the open of /dev/kdt by kdt;
#   - root-mount: the tmpfs mount on /mnt with ret 0, the nosuchfs one
#     with -19 (ENODEV);
#   - early-alloc: kmalloc bytes by program, positive, kdt among them;
#   - boot-irqs: softirqs counted, the TIMER or RCU vector among them;
#   - lock-contention: any wait reported has a sane time;
# and kdt-extract --format=json on the dump gives the same records as
# kdt -ae --format=json did in the guest; --format=perfetto on the dump
# has one slice per module init (do_init_module entry/return, named by
# the module) and per initcall.  The HTML and Perfetto files are kept in
# build/artifacts/toolkit-boot.{html,perfetto.json}.
#
# Boot 2: flight-recorder.d (ring buffers); a shell loop of 6,000
# redirected echos (six system calls each) overfills the ring of the CPU
# it runs on; the harness panics the guest
# with sysrq-c and dumps it; kdt-extract --merge on the dump: the newest
# record is the PANIC line with "sysrq triggered crash", on the CPU whose
# preceding records show the write(2) that triggered it; the ring kept
# only the newest records (that CPU's oldest record is not at logical
# offset 0).
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
d=$(dirname "$0")
tk="$KV_TOP/toolkit"
work=$(mktemp -d "$KV_TOP/build/vm-toolkit.XXXXXX")
trap 'rm -rf "$work"' EXIT
art="$KV_TOP/build/artifacts"
mkdir -p "$art"

boot1="initcall-latency module-load driver-probe early-userspace root-mount early-alloc boot-irqs lock-contention"
for f in "$tk"/*.d; do
	for w in '^ \* Run it:' '^ \* Output' '^/\*$'; do
		grep -q "$w" "$f" || kv_fail "${f#$KV_TOP/}: header lacks '$w'"
	done
	# a live user-space script takes a process and its provider
	a=()
	! grep -q '\$1\$target' "$f" || a=(-p $$ kdttest)
	"$KV_KDT" -e -s "$f" --btf="$KV_TOP/build/kernel/vmlinux" "${a[@]}" ||
	    kv_fail "${f#$KV_TOP/} does not compile"
done

# ---- usdt-events.d, run in the shared live boot (tests/vm/progs/live.sh)
# on /bin/upid-test 300, whose one USDT probe kdttest:::tick fires 300
# times: its line names the probe with the pid, counts 300, and the
# first firing is not after the last
res=$(kv_live)
kv_live_rc "$res" tk_usdt 0
[ "$(grep -c '^kdttest' "$res/tk_usdt.out")" = 1 ] ||
    kv_fail "usdt-events.d: not one probe line"
grep '^kdttest' "$res/tk_usdt.out" | awk '
	$1 !~ /^kdttest[0-9]+:a\.out:main:tick$/ { exit 1 }
	$2 != 300 || $3 != "first" || $6 != "last" || $8 != "us" { exit 1 }
	$4 + 0 > $7 + 0 { exit 1 }' ||
    kv_fail "usdt-events.d: the line is not 'kdttestPID:a.out:main:tick  300  first F us  last L us' with F <= L"
for s in $boot1; do cat "$tk/$s.d"; done > "$work/boot.d"

# ---- boot 1 ----
"$KV_VM" --script "$work/boot.d" --add-kdt --smp "$KV_SMP" \
    --load crc7,crc_itu_t,xor --panic --dump "$work/boot.elf" \
    --run 'mkdir -p /tmp/r /mnt; mount -t tmpfs none /mnt; umount /mnt; mount -t nosuchfs none /mnt 2>/dev/null || true; m=$(find /lib/modules -name "xor.ko*" | head -1); insmod "$m" 2>/dev/null || true; cut -d" " -f1 /proc/modules > /tmp/r/modules; cat /proc/kallsyms > /tmp/r/kallsyms; kdt -ae --format=json > /tmp/r/kdt.json 2> /tmp/r/kdt.err; echo $? > /tmp/r/kdt.rc; tar -cz -C /tmp/r . > /dev/ttyS1' \
    --guest-out "$work/res.tgz" --serial-log "$work/serial1.log" \
    --workdir "$work/vm1" --prefix 'guest| ' --quiet ||
    { tail -40 "$work/serial1.log"; kv_fail "boot 1 failed"; }
mkdir -p "$work/r"
tar -xzf "$work/res.tgz" -C "$work/r" || kv_fail "the guest's results do not unpack"
echo "--- kdt -ae --format=json: exit $(cat "$work/r/kdt.rc"), stderr:"
cat "$work/r/kdt.err"
[ "$(cat "$work/r/kdt.rc")" = 0 ] || kv_fail "kdt -ae exited $(cat "$work/r/kdt.rc")"
# the guest's kdt -ae resolves %a and sym() with that boot's kallsyms;
# kdt-extract gets the same symbols from the copy the guest saved
"$KV_EXTRACT" --kallsyms "$work/r/kallsyms" --format=json "$work/boot.elf" > "$work/dump.json" \
    2> "$work/dump.err" || kv_fail "kdt-extract --format=json: $(cat "$work/dump.err")"
"$KV_EXTRACT" --format=perfetto "$work/boot.elf" > "$work/boot.perfetto" ||
    kv_fail "kdt-extract --format=perfetto exited $?"
"$KV_EXTRACT" --format=html "$work/boot.elf" > "$work/boot.html" ||
    kv_fail "kdt-extract --format=html exited $?"
cp "$work/boot.html" "$art/toolkit-boot.html"
cp "$work/boot.perfetto" "$art/toolkit-boot.perfetto.json"

python3 - "$work" <<'EOF' || kv_fail "see above"
import json, re, sys
w = sys.argv[1]
objs = [json.loads(l) for l in open(w + "/r/kdt.json")]
dump = [json.loads(l) for l in open(w + "/dump.json")]
key = lambda o: (o["cpu"], o["timestamp"], o["text"])
recs = [o for o in objs if o["type"] == "record"]
if [key(o) for o in recs] != [key(o) for o in dump if o["type"] == "record"]:
    sys.exit("FAIL: kdt-extract on the dump and kdt -ae in the guest differ")
lines = [l for r in recs for l in r["text"].splitlines()]
aggs = [o for o in objs if o["type"] == "aggregation"]
loaded = set(open(w + "/r/modules").read().split()) - {"kdt"}
fail = []
def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fail.append(what)

# initcall-latency
ic = [l.split() for l in lines if l.startswith("initcall ")]
mods = {f[1] for f in ic}
# crc7 and crc_itu_t are tables: no init function, so no initcall
withinit = {"pvpanic", "pvpanic_mmio", "qemu_fw_cfg", "xor"}
check(len(ic) == len(mods) and withinit <= mods <= loaded,
      "initcall: one per module with an init function: %s (loaded %s)"
      % (sorted(mods), sorted(loaded)))
check(all(f[-1] == "0" and 0 <= int(f[3]) < 10000000 for f in ic),
      "initcall: ret 0 and a sane time: %s" % [" ".join(f[1:]) for f in ic])
# module-load
ml = [l.split() for l in lines if re.match(r"module \S+ init ", l)]
check({f[1] for f in ml} == loaded and all(f[-1] == "0" for f in ml),
      "module-load: init lines %s" % [" ".join(f[1:]) for f in ml])
fails = [l for l in lines if l.startswith("module-load-failed")]
# ours comes after the nosuchfs mount (busybox insmod may try both
# finit_module and init_module: one or two failures)
t0 = min(r["timestamp"] for r in recs if "type nosuchfs" in r["text"])
ours = [r for r in recs if r["timestamp"] > t0 and
        re.match(r"module-load-failed error -17 after \d+ us by insmod$", r["text"])]
check(1 <= len(ours) <= 2 and all(re.search(r" error -\d+ after \d+ us by ", f) for f in fails),
      "module-load: the second insmod failed with -EEXIST: %s (%d after the mounts)" % (fails, len(ours)))
mi = {a["keys"][0]["value"] for a in aggs if a["keys"] and
      a["keys"][0]["type"] == "string" and a["keys"][0]["value"] in loaded
      and a["function"] == "sum"}
check(mi == loaded, "module-load/initcall: per-module sums for %s" % sorted(mi))
# driver-probe
pr = [l.split() for l in lines if l.startswith("probe ")]
check(any(f[1] == "fw_cfg" for f in pr) and
      all(re.match(r"^-?\d+$", f[-1]) for f in pr),
      "driver-probe: %s" % [" ".join(f[1:]) for f in pr])
# early-userspace
check(any(re.search(r" exec \S*/kdt \(pid \d+\)$", l) for l in lines),
      "early-userspace: exec of kdt")
opens = [a for a in aggs if len(a["keys"]) == 2 and
         a["keys"][0].get("value") == "kdt" and a["keys"][1].get("value") == "/dev/kdt"]
check(len(opens) == 1 and opens[0]["value"] >= 1, "early-userspace: kdt opened /dev/kdt")
# root-mount
mnt = [l for l in lines if " mount " in l]
check(any(re.search(r" mount none on /mnt type tmpfs by mount ret 0$", l) for l in mnt)
      and any(re.search(r" on /mnt type nosuchfs by mount ret -19$", l) for l in mnt),
      "root-mount: %s" % mnt)
# early-alloc: bytes by program (string key, sum)
ka = [a for a in aggs if a["function"] == "sum" and len(a["keys"]) == 1 and
      a["keys"][0]["type"] == "string" and a["keys"][0]["value"] == "kdt"]
check(len(ka) == 1 and ka[0]["value"] > 0, "early-alloc: kmalloc bytes of kdt %s"
      % [a["value"] for a in ka])
# boot-irqs: @softirqs[(int)vector] = count(): int key 0..9
si = {a["keys"][0]["value"]: a["value"] for a in aggs if a["function"] == "count"
      and len(a["keys"]) == 1 and a["keys"][0]["type"] == "int" and
      a["keys"][0]["size"] == 4 and 0 <= a["keys"][0]["value"] <= 9}
check(si.get(1, 0) > 0 or si.get(9, 0) > 0, "boot-irqs: softirqs by vector %s" % si)
# lock-contention
lw = [l.split() for l in lines if l.startswith("wait ")]
check(all(0 < int(f[1]) < 10000000 for f in lw), "lock-contention: %d long waits" % len(lw))
# the timeline of the dump
ev = json.load(open(w + "/boot.perfetto"))["traceEvents"]
sl = [e for e in ev if e["ph"] == "X"]
mi = {e["name"] for e in sl if e["args"]["probe"].startswith("fbt:kernel:do_init_module:")}
ic = {e["name"] for e in sl if e["args"]["probe"].startswith("fbt:kernel:do_one_initcall:")}
check(mi == loaded and ic == mods,
      "perfetto: module and initcall slices named %s / %s" % (sorted(mi), sorted(ic)))
check(all(0 <= e["dur"] < 10e6 for e in sl), "perfetto: %d slices, durations sane" % len(sl))
if fail:
    sys.exit("FAIL: %d checks" % len(fail))
EOF

# ---- boot 2: the flight recorder ----
"$KV_VM" --script "$tk/flight-recorder.d" --smp "$KV_SMP" \
    --load crc7 --panic --dump "$work/fr.elf" \
    --run 'i=0; while [ $i -lt 6000 ]; do echo x > /dev/null; i=$((i + 1)); done' \
    --serial-log "$work/serial2.log" --workdir "$work/vm2" \
    --prefix 'guest| ' --quiet ||
    { tail -40 "$work/serial2.log"; kv_fail "boot 2 failed"; }
# 3: partial -- the panic may stop the other CPU half way through a record,
# which kdt-extract reports (and prints every other record)
rc=0
"$KV_EXTRACT" "$work/fr.elf" > "$work/fr.txt" 2> "$work/fr.err" || rc=$?
[ $rc -eq 0 ] || { [ $rc -eq 3 ] && grep -q 'partial: ' "$work/fr.err"; } ||
    kv_fail "kdt-extract exited $rc: $(cat "$work/fr.err")"
"$KV_EXTRACT" --format=json "$work/fr.elf" > "$work/fr.json" ||
    kv_fail "kdt-extract --format=json exited $?"
python3 - "$work" <<'EOF' || kv_fail "see above"
import json, sys
w = sys.argv[1]
objs = [json.loads(l) for l in open(w + "/fr.json")]
recs = [o for o in objs if o["type"] == "record"]
pan = [r for r in recs if " PANIC " in r["text"]]
if len(pan) != 1 or "sysrq triggered crash" not in pan[0]["text"]:
    sys.exit("FAIL: PANIC records %s" % [r["text"] for r in pan])
cpu = pan[0]["cpu"]
mine = [r for r in recs if r["cpu"] == cpu]
if mine[-1] is not pan[0]:
    sys.exit("FAIL: the PANIC record is not the newest of CPU %d: %r" % (cpu, mine[-1]["text"]))
before = [r["text"] for r in mine[-12:-1]]
if not any(" sys write " in t for t in before):
    sys.exit("FAIL: no write(2) among the last records of CPU %d: %s" % (cpu, before))
# Logical offsets grow for ever (rgn.h): the oldest record kept at an
# offset past 0 means older ones were overwritten -- the ring wrapped.
wrapped = sorted({r["cpu"] for r in recs if r["offset"] > 0} -
                 {r["cpu"] for r in recs if r["offset"] == 0})
if not wrapped:
    sys.exit("FAIL: every CPU still holds its first record: no ring wrapped")
print("rings wrapped on CPU(s) %s" % wrapped)
first = min(r["timestamp"] for r in recs)
print("flight recorder: %d records kept, oldest at %.3f s, PANIC on CPU %d at %.3f s"
      % (len(recs), first / 1e9, cpu, pan[0]["timestamp"] / 1e9))
print("last records of CPU %d:" % cpu)
for t in [r["text"].rstrip() for r in mine[-6:]]:
    print("  " + t)
EOF
echo "PASS"
