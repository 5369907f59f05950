#!/usr/bin/env bash
#
# tst.live-list: kdt -l in dtrace(1)'s format ("%5s %10s %17s %33s %s"
# heading, the same widths per probe), through KIO_LIST.  In the guest
# (tests/vm/progs/live.sh): the whole list holds the dtrace, fbt, syscall
# and profile providers' probes, fbt's and syscall's by the hundred (the
# ID column of chosen lines varies with the kernel, so it is masked); -l
# with -n (exact and glob), -P, -f, -m and -s lists what each description
# matches, in order, under one heading; a description matching nothing
# gets dtrace's "failed to match" message and the listing goes on (exit 0,
# as dtrace).  Everything but the masked IDs equals tst.live-list.out.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)
names="list_n list_glob list_P list_f list_mf list_s list_none"
for n in list_all $names; do
	kv_live_rc "$res" "$n" 0
done
echo "kdt -l: probes per provider:"
cat "$res/list_all.count"
# at least: dtrace's 3, profile's named rates, fbt and syscall in plenty
for want in "dtrace 3" "fbt 1000" "syscall 100" "profile 5"; do
	set -- $want
	n=$(awk -v p="$1" '$1 == p { print $2 }' "$res/list_all.count")
	[ "${n:-0}" -ge "$2" ] ||
	    kv_fail "kdt -l: ${n:-no} $1 probes, want at least $2"
done
{
	echo "== list_all"
	sed -E '2,$s/^ *[0-9]+ /    N /' "$res/list_all.out"
	for n in $names; do
		echo "== $n"
		cat "$res/$n.out" "$res/$n.err"
	done
} | diff -u "$(dirname "$0")/tst.live-list.out" - ||
    kv_fail "listing differs from tst.live-list.out"
echo "PASS"
