#!/usr/bin/env bash
#
# tst.panic-midflight: the guest panics while probes fire on every CPU,
# and kdt-extract gets every committed record out of the dump.  An
# anonymous enabling (ring buffers in the region) prints one record per
# getppid() of /bin/seqcall, whose children make numbered calls pinned to
# each CPU (arg0 = (cpu + 1) * 10^7 + i, tests/vm/progs/seqcall.c), so a
# lost, duplicated or garbled record shows as a gap or a stranger.
#  1. sysrq: with both CPUs firing, CPU 1 panics through
#     /proc/sysrq-trigger (the kernel stops CPU 0 with an IPI or NMI,
#     wherever it is -- possibly half way through a record); each CPU's
#     records in the dump are its newest calls, consecutive, nothing but
#     its own; a record torn by the stop is reported with its CPU and
#     offset and never printed.
#  2. panic() from a probe (destructive, -w as a pragma): the clause that
#     panics on CPU 0's call 5000 runs after the clause that records, so
#     the last record of CPU 0 in the dump is exactly call 5000, and CPU 1
#     has its own consecutive calls up to the moment it was stopped.
#  3. an NMI panic, the way a hard-lockup watchdog ends a hung machine:
#     with both CPUs firing, the host injects an NMI into every vCPU
#     (kdt-vm --nmi-on, unknown_nmi_panic=1), so a CPU may be stopped
#     inside kdt.ko's probe context with interrupts off, half way through
#     a record; the dump holds each CPU's consecutive newest calls and a
#     torn record, if any, is reported and never printed.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-midflight.XXXXXX")
trap 'rm -rf "$work"' EXIT

gcc -static -O2 -o "$work/seqcall" "$KV_PROGS/seqcall.c" ||
    kv_fail "cannot build the static seqcall"
cat > "$work/sysrq.d" <<'D'
#pragma D option bufpolicy=ring
#pragma D option bufsize=64k
#pragma D option quiet
syscall::getppid:entry /execname == "seqcall"/ { printf("%d %d\n", cpu, arg0); }
D
cat > "$work/action.d" <<'D'
#pragma D option bufpolicy=ring
#pragma D option bufsize=64k
#pragma D option quiet
#pragma D option destructive
syscall::getppid:entry /execname == "seqcall"/ { printf("%d %d\n", cpu, arg0); }
syscall::getppid:entry /execname == "seqcall" && arg0 == 10005000/ { panic(); }
D

# judge NAME [LAST0]: per CPU, consecutive calls of its own; with LAST0,
# CPU 0's last record must be that call
judge()
{
	awk -v name="$1" -v last0="${2:-}" '
	NF == 0 { next }
	NF != 2 { print name ": not a record: " $0; bad = 1; next }
	{
		c = $1; v = $2; base = (c + 1) * 10000000
		if (v <= base || v >= base + 10000000) {
			print name ": CPU " c ": " v " is not one of its calls"
			bad = 1
		}
		if (c in last && v != last[c] + 1) {
			print name ": CPU " c ": " v " follows " last[c]
			bad = 1
		}
		if (!(c in first)) first[c] = v
		last[c] = v; n[c]++
	}
	END {
		for (c = 0; c < 2; c++) {
			if (!(c in n)) { print name ": nothing from CPU " c; bad = 1; continue }
			base = (c + 1) * 10000000
			printf("%s: CPU %d: calls %d..%d (%d records)\n", name, c,
			    first[c] - base, last[c] - base, n[c])
		}
		if (last0 != "" && last[0] != last0) {
			print name ": CPU 0 ends at " last[0] ", not at the panicking call " last0
			bad = 1
		}
		exit bad
	}' "$work/$1.out"
}

# extract NAME: kdt-extract on the dump; complete (0), or partial (3)
# because the stop tore a record, which it must then report
extract()
{
	local rc=0
	"$KV_EXTRACT" "$work/$1.elf" > "$work/$1.out" 2> "$work/$1.err" || rc=$?
	cat "$work/$1.err"
	case $rc in
	0) ;;
	3) grep -q 'torn' "$work/$1.err" && grep -q 'partial: ' "$work/$1.err" ||
	    kv_fail "$1: kdt-extract exit 3 without a torn record reported" ;;
	*) kv_fail "$1: kdt-extract exit $rc" ;;
	esac
	if grep -v 'torn\|raw region\|region at\|boot id\|written by' "$work/$1.err" |
	    grep -qi 'corrupt\|garbage\|error'; then
		kv_fail "$1: kdt-extract reports damage beyond torn records"
	fi
}

"$KV_VM" --script "$work/sysrq.d" --smp 2 --add "$work/seqcall:/bin/seqcall" \
    --run '/bin/seqcall 9000000 & sleep 3' \
    --run 'taskset -c 1 sh -c "echo c > /proc/sysrq-trigger"' \
    --panic-during --dump "$work/sysrq.elf" --workdir "$work/vm1" --quiet ||
    kv_fail "sysrq boot failed"
extract sysrq
judge sysrq || kv_fail "sysrq: the records in the dump are not every CPU's newest calls"

"$KV_VM" --script "$work/action.d" --smp 2 --add "$work/seqcall:/bin/seqcall" \
    --run '/bin/seqcall 9000000' \
    --panic-during --dump "$work/action.elf" --workdir "$work/vm2" --quiet ||
    kv_fail "panic() boot failed"
extract action
judge action 10005000 || kv_fail "action: the records in the dump are not every committed call"

"$KV_VM" --script "$work/sysrq.d" --smp 2 --add "$work/seqcall:/bin/seqcall" \
    --append unknown_nmi_panic=1 \
    --run '/bin/seqcall 9000000 & sleep 3; echo "NMI-""NOW"; sleep 120' \
    --nmi-on '^NMI-NOW' --expect 'NMI' \
    --panic-during --dump "$work/nmi.elf" --workdir "$work/vm3" --quiet ||
    kv_fail "NMI boot failed"
extract nmi
judge nmi || kv_fail "nmi: the records in the dump are not every CPU's newest calls"
echo "PASS"
