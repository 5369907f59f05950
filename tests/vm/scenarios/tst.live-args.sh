#!/usr/bin/env bash
#
# tst.live-args: typed args[] of sdt and syscall probes, and `kdt -l -v`,
# in one boot of the pinned kernel (guest half: tst.live-args.run).
#
#   list_exec   kdt -l -v -n sdt:sched::sched_process_exec: dtrace's
#               "Argument Types" section with the tracepoint's prototype
#               from the guest's BTF (btf_trace_sched_process_exec)
#   list_sys    syscall::openat: (entry from tracefs's format file, as
#               openat's __do_sys_ is inlined; return: long, long),
#               newstat:entry (from BTF's __do_sys_newstat) and
#               getppid:entry (no arguments)
#   list_fbt    fbt entry/return of vfs_read; profile: None
#   exec        sdt:sched::sched_process_exec for `-c /bin/true`:
#               stringof(args[0]->comm) is "true", args[1] (old_pid) is
#               the process's pid
#   open        syscall::openat:entry with /args[0] == -100/ (an int:
#               AT_FDCWD whatever the register's upper half) prints
#               copyinstr((uintptr_t)args[1]), the file cat opens;
#               openat:return counts args[0] == args[1] >= 0
#   mod_before  sdt:kyber::kyber_latency before kyber-iosched is loaded:
#               args[7] compiles (untyped), no error
#   list_kyber  loaded: its seven argument types from the module's split
#               BTF (/sys/kernel/btf/kyber_iosched)
#   mod_after   args[7] is now out of range (D_ARGS_IDX, 7 arguments)
#   mod_typed   stringof(args[1]) (const char *domain) compiles
#   list_wdog   watchdog loaded too: sdt:watchdog::watchdog_start's
#               types (struct watchdog_device * is watchdog's own type)
#   mod_two     one program typing both modules: kyber_latency's args,
#               watchdog_start's args[0]->id, fbt
#               watchdog:watchdog_register_device's args[0]->timeout
#               and sizeof (struct watchdog`watchdog_device)
#
# Listings (IDs masked) and the firings equal tst.live-args.out.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-args.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --add-kdt --modules kyber-iosched,watchdog --timeout 240 \
    --add "$(dirname "$0")/tst.live-args.run:/args.sh" \
    --run 'sh /args.sh' --guest-out "$work/results.tgz" \
    --serial-log "$work/serial.log" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"

for n in mod_before list_exec list_sys list_fbt exec open list_kyber \
    mod_typed list_wdog mod_two; do
	kv_live_rc "$r" "$n" 0
done
kv_live_rc "$r" mod_after 1
grep -qF '[D_ARGS_IDX] index 7 is out of range for sdt:kyber::kyber_latency args[ ] (the probe has 7 typed arguments)' \
    "$r/mod_after.err" || kv_fail "mod_after: no D_ARGS_IDX for args[7]"
grep -qx kyber_iosched "$r/btf.ls" ||
    kv_fail "the guest has no /sys/kernel/btf/kyber_iosched"
echo "--- sys_enter_openat/format:"
cat "$r/openat.format"
{
	for n in list_exec list_sys list_fbt list_kyber list_wdog; do
		echo "== $n"
		sed -E '2,$s/^ *[0-9]+ /    N /' "$r/$n.out"
	done
	echo "== exec"
	cat "$r/exec.out"
	echo "== open"
	grep -v '^open /\(etc\|lib\|usr\)/' "$r/open.out"
} | diff -u "$(dirname "$0")/tst.live-args.out" - ||
    kv_fail "output differs from tst.live-args.out"
if grep -E 'WARNING:|BUG:|Call Trace|Oops' "$work/serial.log" "$r/dmesg"; then
	kv_fail "kernel warnings in the boot"
fi
echo "PASS"
