#!/usr/bin/env bash
#
# tst.live-fbtbulk: fbt entry and return probes armed in bulk through
# kdt.ko's own ftrace_ops (kmod/kd_fbt.c, kd_fbt_bulk_arm: from 16 probes
# live), the return probes through a rethook of kdt's, and kdt.ko's
# kallsyms_lookup_name kprobe kept from load to unload (kmod/kd_ksym.c).
# One boot (module mode, ~30 s):
#
#   - an enabling of the entry and return probes of 9 read/write/open
#     functions (18 probes) counts, for dd (started after kdt is ready,
#     done before it stops), as many returns as entries of vfs_read, and
#     vfs_read's return values (arg1) are the bytes dd read: 5 (the file),
#     then 0 (end of file);
#   - while it runs no kretprobe is registered (kprobes/list holds only
#     kdt.ko's [DISABLED] kallsyms_lookup_name probe) and vfs_read is in
#     tracing/enabled_functions; after it stops vfs_read is not there;
#   - kdt.ko's own functions are neither in ftrace's
#     available_filter_functions nor fbt's probes (fbt:kdt::entry
#     matches nothing);
#   - rmmod kdt then removes that kprobe too (kprobes/list empty);
#   - the kernel log has no WARNING, BUG, Oops or lockup.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-fbtbulk.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/guest.sh" <<'EOF'
exec > /dev/ttyS1 2>&1
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
KL=/sys/kernel/debug/kprobes/list
EF=/sys/kernel/tracing/enabled_functions
printf 'hello' > /tmp/five
F="vfs_read vfs_write ksys_read ksys_write __x64_sys_read __x64_sys_write
    do_sys_openat2 __x64_sys_openat vfs_getattr"
P=
for f in $F; do P="$P${P:+,}fbt::$f:entry,fbt::$f:return"; done
kdt -q -w -n "BEGIN { system(\"touch /tmp/ready\"); }" \
    -n "$P { @n[probefunc, probename] = count(); }" \
    -n 'fbt::vfs_read:entry /execname == "dd"/ { @dd["entry"] = count(); }' \
    -n 'fbt::vfs_read:return /execname == "dd"/ { @dd["return"] = count();
        @ret[arg1] = count(); }' \
    -n 'END { printa("dd %s %@d\n", @dd); printa("ret %d %@d\n", @ret);
        printa("n %s %s %@d\n", @n); }' > /tmp/out 2> /tmp/err &
pid=$!
i=0
while [ ! -f /tmp/ready ] && [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
[ -f /tmp/ready ] || echo "NOTREADY"
sed 's/^/KPLIST /' $KL
grep -q '^vfs_read ' $EF && echo "ARMED vfs_read"
dd if=/tmp/five of=/dev/null bs=4096 2>/dev/null
sleep 0.5
kill -INT $pid
wait $pid
echo "KDTRC $?"
sed 's/^/ERR /' /tmp/err
cat /tmp/out
grep -q '^vfs_read ' $EF && echo "LEFT vfs_read"
AF=/sys/kernel/tracing/available_filter_functions
grep -qx 'vfs_read' $AF && echo "AFOK"
echo "KDTFTRACE $(grep -c '\[kdt\]' $AF)"
kdt -n 'fbt:kdt::entry' -n 'BEGIN { exit(0); }' > /dev/null 2> /tmp/self
echo "SELFRC $?"
sed 's/^/SELF /' /tmp/self
rmmod kdt && echo "RMMOD 0"
sed 's/^/AFTER /' $KL
dmesg | grep -E 'WARNING:|BUG:|Oops|soft lockup|Call Trace' | sed 's/^/BAD /'
echo DONE
EOF

"$KV_VM" --add-kdt --add "$work/guest.sh:/guest.sh" --run 'sh /guest.sh' \
    --guest-out "$work/res" --workdir "$work/vm" --prefix 'guest| ' ||
    kv_fail "boot failed"
r="$work/res"
cat "$r"
grep -qx DONE "$r" || kv_fail "the guest script did not finish"
! grep -q NOTREADY "$r" || kv_fail "kdt never said it was ready"
grep -qx "KDTRC 0" "$r" || kv_fail "kdt did not exit 0"
! grep -q '^ERR ' "$r" || kv_fail "kdt wrote to stderr"
grep -q '^BAD ' "$r" && kv_fail "kernel log: $(grep -m1 '^BAD ' "$r")"
# armed: kdt.ko's one disabled kprobe, no kretprobe; vfs_read in ftrace
[ "$(grep -c '^KPLIST ' "$r")" = 1 ] &&
    grep -Eq '^KPLIST .* k +kallsyms_lookup_name\+0x0 .*\[DISABLED\]' "$r" ||
    kv_fail "kprobes/list while armed: want only kallsyms_lookup_name [DISABLED]"
grep -qx "ARMED vfs_read" "$r" ||
    kv_fail "vfs_read not in enabled_functions while armed"
! grep -q "^LEFT " "$r" || kv_fail "vfs_read still in enabled_functions"
# kdt.ko has no ftrace hooks (kmod/Kbuild) and fbt leaves it out
grep -qx AFOK "$r" || kv_fail "vfs_read not in available_filter_functions"
grep -qx "KDTFTRACE 0" "$r" ||
    kv_fail "kdt.ko's functions in available_filter_functions: $(grep '^KDTFTRACE' "$r")"
grep -q '^SELFRC [1-9]' "$r" &&
    grep -q '^SELF .*probe description fbt:kdt::entry does not match any probes' "$r" ||
    kv_fail "fbt:kdt::entry: want 'does not match any probes' and a failure"
grep -qx "RMMOD 0" "$r" || kv_fail "rmmod kdt failed"
! grep -q '^AFTER ' "$r" || kv_fail "kprobes/list not empty after rmmod"
# dd: one read of 5 bytes, one of 0; as many returns as entries
e=$(awk '$1 == "dd" && $2 == "entry" { print $3 }' "$r")
x=$(awk '$1 == "dd" && $2 == "return" { print $3 }' "$r")
[ -n "$e" ] && [ "$e" = "$x" ] ||
    kv_fail "dd's vfs_read: $e entries, $x returns"
grep -Eq '^ret 5 [1-9]' "$r" && grep -Eq '^ret 0 [1-9]' "$r" ||
    kv_fail "vfs_read's return values for dd: want 5 and 0"
# every function's entry and return fired
for f in vfs_read vfs_write ksys_read ksys_write __x64_sys_read \
    __x64_sys_write; do
	for n in entry return; do
		grep -Eq "^n $f +$n +[1-9]" "$r" || kv_fail "fbt::$f:$n never fired"
	done
done
echo "PASS"
