#!/usr/bin/env bash
#
# tst.live-print: print() of kernel structs typed from BTF, on kdt.ko in
# one boot of the pinned kernel (guest half: tst.live-print.run).  The
# compiler carries the type's layout in the DOF (common/dof_ptype.h),
# kdt.ko's dof_load() validates it and records the object's bytes, and
# the consumer prints them with no BTF at hand.
#
#   openhow   fbt::do_sys_openat2:entry's args[2], the struct open_how
#             the kernel built for cmp's open(O_RDONLY) of a file:
#             flags O_LARGEFILE (0x8000, forced on 64-bit), mode and
#             resolve 0 -- the whole output is tst.live-print.out
#   task      print(*curthread) in BEGIN: struct task_struct (about
#             10 KiB) is recorded up to print()'s 4096-byte limit; the
#             output starts with its first members and ends by saying
#             how many members were not recorded and the type's size
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-print.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --add-kdt --timeout 200 \
    --add "$(dirname "$0")/tst.live-print.run:/print.sh" \
    --run 'sh /print.sh' --guest-out "$work/results.tgz" \
    --workdir "$work/vm" --quiet || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"

kv_live_rc "$r" openhow 0
kv_live_rc "$r" task 0
diff -u "$(dirname "$0")/tst.live-print.out" "$r/openhow.out" ||
    kv_fail "openhow: output differs from tst.live-print.out"
head -n 2 "$r/task.out" | diff -u - <(printf '%s\n' \
    'struct task_struct {' \
    '    struct thread_info thread_info = {') ||
    kv_fail "task: does not start with struct task_struct's first members"
grep -Eq '^    \.\.\. [0-9]+ more members not recorded \(struct task_struct is [0-9]+ bytes; print\(\) records at most 4096 bytes and 16 levels\)$' \
    "$r/task.out" || kv_fail "task: no line saying what was cut"
grep -Eq '^    pid_t pid = 0x[0-9a-f]+$' "$r/task.out" ||
    kv_fail "task: no pid member"
if grep -E 'WARNING:|BUG:|Call Trace|Oops' "$r/dmesg"; then
	kv_fail "kernel warnings in the boot"
fi
echo "PASS"
