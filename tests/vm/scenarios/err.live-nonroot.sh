#!/usr/bin/env bash
#
# err.live-nonroot: /dev/kdt is root's.  In the guest, busybox su runs kdt
# as "nobody" (tests/vm/progs/passwd): tracing (kdt -n) and listing
# (kdt -l) fail with exit status 1 and a message that says why and what is
# needed; the userspace engine, asked for by name, still runs a BEGIN
# program without privileges.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)
msg="kdt: /dev/kdt: permission denied: tracing needs root (CAP_SYS_ADMIN); see kdt(1), DEVICE ACCESS"
for n in nonroot nonroot_l; do
	kv_live_rc "$res" "$n" 1
	echo "$msg" | diff -u - "$res/$n.err" ||
	    kv_fail "$n: not the permission message"
	[ ! -s "$res/$n.out" ] || kv_fail "$n: unexpected stdout"
done
kv_live_rc "$res" nonroot_user 0
grep -Eqx '  [01]      1 +:BEGIN +1' "$res/nonroot_user.out" ||
    kv_fail "nonroot_user: the userspace engine did not run BEGIN"
echo "PASS"
