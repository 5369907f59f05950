#!/usr/bin/env bash
#
# tests/vm/lib.sh -- helpers the VM scenarios (tests/vm/scenarios/*.sh)
# source.  Not a scenario itself.
#
# It fixes the demo's workload in one place (examples/boot.d, the modules
# the guest loads) and keeps one panic dump of that workload under
# build/vm-cache/, keyed by a hash of every input that shapes it, so that
# several scenarios can read the same dump while only one of them pays for
# the boot.  tests/run-tests sets KDT_RUN_ID, which joins the key: each
# `make check` boots at least once, and its scenarios share that boot.
#
set -euo pipefail

KV_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KV_VM="$KV_TOP/tests/vm/kdt-vm"
KV_KDT="$KV_TOP/build/bin/kdt"
KV_EXTRACT="$KV_TOP/build/bin/kdt-extract"
KV_KMOD="$KV_TOP/build/kmod/kdt.ko"
KV_SCRIPT="$KV_TOP/examples/boot.d"
# Small Debian modules with no dependencies that load in a bare guest.
KV_MODULES=crc7,crc_itu_t,lz4_compress,xor
KV_SMP=2
# What boot.d traces, in load order: /init's QEMU helpers, then ours.
KV_LOADED="pvpanic pvpanic_mmio qemu_fw_cfg crc7 crc_itu_t lz4_compress xor"

kv_fail()
{
	echo "FAIL: $*" >&2
	exit 1
}

# Every built piece a kdt scenario needs; a missing one is a failure, as
# `make check` builds them all first.
kv_need_all()
{
	local f

	for f in "$KV_KDT" "$KV_EXTRACT" "$KV_KMOD" "$KV_SCRIPT"; do
		[ -f "$f" ] || kv_fail "${f#$KV_TOP/}: missing (run 'make')"
	done
}

kv_key()
{
	{
		sha256sum "$KV_KDT" "$KV_KMOD" "$KV_SCRIPT" \
		    "$KV_TOP/boot/mkinitramfs" "$KV_TOP/boot/init" "$KV_VM" \
		    "$KV_TOP/build/kernel/boot/"vmlinuz-*
		echo "$KV_MODULES ${KDT_RUN_ID:-}"
	} | sha256sum | cut -c1-16
}

# Print the path of a dump of the demo workload (boot.d, load the modules,
# panic), booting once if no dump with the same inputs is cached.  The
# serial log sits beside it as serial.log.
kv_demo_dump()
{
	local key dir

	kv_need_all
	key=$(kv_key)
	dir="$KV_TOP/build/vm-cache/demo-$key"
	if [ ! -f "$dir/done" ]; then
		# Keep one cached dump only: each is ~550 MB.
		rm -rf "$KV_TOP"/build/vm-cache/demo-*
		mkdir -p "$dir"
		"$KV_VM" --script "$KV_SCRIPT" --load "$KV_MODULES" \
		    --smp "$KV_SMP" --panic \
		    --dump "$dir/dump.elf" --serial-log "$dir/serial.log" \
		    --workdir "$dir/work" --prefix 'guest| ' \
		    --expect 'KDT-VM: insmod /lib/modules/kdt.ko anon=1 region=' \
		    --expect 'KDT-VM: kdt.ko loaded' >&2 ||
		    kv_fail "demo boot failed"
		touch "$dir/done"
	else
		echo "using cached dump $dir/dump.elf" >&2
	fi
	echo "$dir/dump.elf"
}

# Print the file offset of guest-physical address PA in ELF dump DUMP.
kv_elf_offset()
{
	python3 - "$1" "$2" <<'PY'
import struct, sys
path, pa = sys.argv[1], int(sys.argv[2], 0)
with open(path, "rb") as f:
    eh = f.read(64)
    phoff, = struct.unpack_from("<Q", eh, 32)
    phentsize, phnum = struct.unpack_from("<HH", eh, 54)
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        p_type, _, off, _, paddr, filesz = struct.unpack("<IIQQQQ", f.read(40))
        if p_type == 1 and paddr <= pa < paddr + filesz:
            print(off + pa - paddr)
            sys.exit(0)
sys.exit("pa %#x: in no PT_LOAD of %s" % (pa, path))
PY
}

# Check that FILE (kdt output for examples/boot.d) holds the
# BEGIN line and one record per module of KV_LOADED, each exactly once,
# in the order the guest could have produced them.  dtrace prints the
# per-CPU buffers one CPU after the other, so the order to expect is per
# CPU: with a CPU column, each CPU's records must follow the load order;
# without one (quiet), the output must be at most KV_SMP runs each in
# load order, and BEGIN must open one of them.
kv_check_order()
{
	python3 - "$1" "$KV_LOADED" "$KV_SMP" <<'PY'
import re, sys
path, loaded, smp = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
rank = {m: i + 1 for i, m in enumerate(loaded)}
seq = []                        # (cpu or None, rank)
for line in open(path):
    m = re.match(r"^ *(\d+) +\d+ +\S*:\S+ (.*)$", line)
    cpu, text = (int(m.group(1)), m.group(2)) if m else (None, line.strip())
    if "tracing module initialisation" in text:
        seq.append((cpu, 0))
    elif text.startswith("init module "):
        name = text.split()[-1]
        if name not in rank:
            sys.exit("unexpected module %r in %s" % (name, path))
        seq.append((cpu, rank[name]))
got = sorted(r for _, r in seq)
if got != list(range(len(loaded) + 1)):
    sys.exit("want BEGIN and %s once each; got ranks %s" % (loaded, got))
if seq[0][0] is not None:
    for cpu in sorted({c for c, _ in seq}):
        if cpu >= smp:
            sys.exit("cpu %d: the guest has %d CPUs" % (cpu, smp))
        mine = [r for c, r in seq if c == cpu]
        if mine != sorted(mine):
            sys.exit("cpu %d: records out of load order: %s" % (cpu, mine))
else:
    runs = [[seq[0][1]]]
    for _, r in seq[1:]:
        if r < runs[-1][-1]:
            runs.append([])
        runs[-1].append(r)
    if len(runs) > smp or 0 not in [run[0] for run in runs]:
        sys.exit("records are not %d per-CPU runs in load order starting "
                 "one with BEGIN: %s" % (smp, runs))
print("order ok: %d records" % len(seq))
PY
}

# Normalise kdt output for comparison with an expected file: the CPU column
# varies from run to run (kv_check_order checks it), so it becomes 'C', and
# lines are sorted because the interleaving of CPUs varies too.
kv_normalise()
{
	sed -E 's/^( *)[0-9]+( +[0-9]+ +[^ ]*:[^ ]* )/\1C\2/' | LC_ALL=C sort
}

# Compare kdt output FILE with the expected file EXPECTED (written in load
# order, CPU column as 'C', for people to read) after kv_normalise.
kv_compare()
{
	diff -u --label "$1 (sorted)" --label "$2 (normalised)" \
	    <(kv_normalise < "$1") <(kv_normalise < "$2")
}

# ---- the live scenarios (tst.live-*, err.live-*) ----
#
# Every kdt command they judge runs in one boot, by tests/vm/progs/live.sh
# in the guest (kdt.ko loaded by /init, kdt at /bin/kdt, the workloads
# /bin/getppid-loop and /bin/upid-test (static) and /bin/upid-pie, an
# /etc/passwd with "nobody").  The results
# come back over the raw second serial port as a gzip'd tar and are kept
# under build/vm-cache/live-KEY/results/, keyed like the demo dump, so
# the scenarios of one run share the boot.

KV_PROGS="$KV_TOP/tests/vm/progs"

kv_live_key()
{
	{
		sha256sum "$KV_KDT" "$KV_KMOD" "$KV_PROGS"/* \
		    "$KV_TOP/toolkit/usdt-events.d" \
		    "$KV_TOP/boot/mkinitramfs" "$KV_TOP/boot/init" "$KV_VM" \
		    "$KV_TOP/build/kernel/boot/"vmlinuz-*
		echo "${KDT_RUN_ID:-}"
	} | sha256sum | cut -c1-16
}

# Print the directory holding the live results (NAME.out, NAME.err,
# NAME.rc per command of live.sh), booting once if they are not cached.
kv_live()
{
	local key dir f

	for f in "$KV_KDT" "$KV_KMOD"; do
		[ -f "$f" ] || kv_fail "${f#$KV_TOP/}: missing (run 'make')"
	done
	key=$(kv_live_key)
	dir="$KV_TOP/build/vm-cache/live-$key"
	if [ -f "$dir/done" ]; then
		echo "using cached live results $dir/results" >&2
		echo "$dir/results"
		return
	fi
	rm -rf "$KV_TOP"/build/vm-cache/live-*
	mkdir -p "$dir/results"
	gcc -static -O2 -o "$dir/getppid-loop" "$KV_PROGS/getppid-loop.c" >&2 ||
	    kv_fail "cannot build the static getppid-loop (gcc -static)"
	gcc -static -O2 -o "$dir/upid-test" "$KV_PROGS/upid-test.c" >&2 ||
	    kv_fail "cannot build the static upid-test (gcc -static, sys/sdt.h)"
	# the same as a PIE on the shared libc (the guest has kdt's libc)
	gcc -O2 -o "$dir/upid-pie" "$KV_PROGS/upid-test.c" >&2 ||
	    kv_fail "cannot build upid-pie"
	"$KV_VM" --add-kdt --smp "$KV_SMP" --modules xor \
	    --add "$KV_PROGS/live.sh:/live.sh" \
	    --add "$KV_TOP/toolkit/usdt-events.d:/toolkit/usdt-events.d" \
	    --add "$dir/getppid-loop:/bin/getppid-loop" \
	    --add "$dir/upid-test:/bin/upid-test" \
	    --add "$dir/upid-pie:/bin/upid-pie" \
	    --add "$KV_PROGS/passwd:/etc/passwd" \
	    --add "$KV_PROGS/group:/etc/group" \
	    --run 'sh /live.sh' --guest-out "$dir/results.tgz" \
	    --serial-log "$dir/serial.log" --workdir "$dir/work" \
	    --prefix 'guest| ' --expect 'KDT-VM: kdt.ko loaded' >&2 ||
	    kv_fail "live boot failed"
	tar -xzf "$dir/results.tgz" -C "$dir/results" ||
	    kv_fail "the guest's results ($dir/results.tgz) do not unpack"
	# Consumers come and go in this boot: kdt.ko must not complain.
	if grep -E 'WARNING:|BUG:|Call Trace|Trying to vfree' \
	    "$dir/serial.log" >&2; then
		kv_fail "kernel warnings in the live boot ($dir/serial.log)"
	fi
	touch "$dir/done"
	echo "$dir/results"
}

# Check live result NAME: exit status RC and, when the scenario has one,
# stdout equal to EXPECTED.
kv_live_rc()
{
	local got

	got=$(cat "$1/$2.rc" 2>/dev/null || echo missing)
	echo "--- $2: exit $got; stdout:"
	cat "$1/$2.out" 2>/dev/null
	echo "--- $2: stderr:"
	cat "$1/$2.err" 2>/dev/null
	[ "$got" = "$3" ] || kv_fail "$2: exit status $got, want $3"
}
