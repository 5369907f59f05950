#!/usr/bin/env bash
#
# err.live-lockdown: kernel lockdown is honoured.  kdt.ko is loaded (an
# unsigned module could not be loaded once the kernel is locked down, so
# the lockdown is raised after it, at run time); with lockdown at
# "confidentiality" -- the level that forbids kprobes -- a live enabling is
# refused with exit status 1 and a message naming the lockdown, and no
# probe is armed; so is kdt -A --estimate's rehearsal of the boot's
# arming (KIO_REHEARSE).
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-lockdown.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --add-kdt --smp 1 \
    --run 'mount -t securityfs none /sys/kernel/security 2>/dev/null || true' \
    --run 'echo "LOCKDOWN: before: $(cat /sys/kernel/security/lockdown)"' \
    --run 'rc=0; kdt -n "BEGIN { exit(0); }" > /tmp/o1 2> /tmp/e1 || rc=$?; echo "LOCKDOWN: unlocked rc=$rc"' \
    --run 'echo confidentiality > /sys/kernel/security/lockdown' \
    --run 'echo "LOCKDOWN: after: $(cat /sys/kernel/security/lockdown)"' \
    --run 'rc=0; kdt -n "BEGIN { exit(0); }" > /tmp/o2 2> /tmp/e2 || rc=$?; echo "LOCKDOWN: locked rc=$rc: $(cat /tmp/e2)"' \
    --run 'echo "LOCKDOWN: stdout bytes $(wc -c < /tmp/o2)"' \
    --run 'KDT_CALIBRATION=/none kdt -A --estimate -n "fbt::vfs_read:entry { }" 2>&1 | grep "arming at boot" | sed "s/^/LOCKDOWN: rehearse: /"' \
    --serial-log "$work/serial.log" --workdir "$work/vm" --quiet ||
    kv_fail "boot failed"
grep -a '^LOCKDOWN' "$work/serial.log"
grep -aq '^LOCKDOWN: unlocked rc=0' "$work/serial.log" ||
    kv_fail "before the lockdown, kdt did not run"
grep -aq '^LOCKDOWN: after: .*\[confidentiality\]' "$work/serial.log" ||
    kv_fail "the guest kernel did not accept lockdown=confidentiality"
grep -aq '^LOCKDOWN: locked rc=1: .*locked down for confidentiality' "$work/serial.log" ||
    kv_fail "under lockdown, kdt was not refused with the lockdown named"
grep -aq '^LOCKDOWN: stdout bytes 0' "$work/serial.log" ||
    kv_fail "under lockdown, the program printed something"
grep -aq '^LOCKDOWN: rehearse: kdt: arming at boot not rehearsed: kdt.ko: the kernel is locked down for confidentiality' "$work/serial.log" ||
    kv_fail "under lockdown, kdt -A --estimate's rehearsal was not refused with the lockdown named"
echo "PASS"
