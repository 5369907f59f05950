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
# Probe ids are kdt.ko's, global as dtrace's (kmod/kd_cs.c): dtrace's are
# 1-3, every other probe's id is the same in every listing (so only ids
# above 3 are masked, and syscall::getppid:entry's must be one value
# throughout); `kdt -l -i ID` lists that probe, an unknown id is refused;
# `kdt -i ID` enables it and its default output's ID column says ID, and
# so does a second consumer running at the same time whose own probes
# come in another order (it matches getppid:return first).  A module's
# probes (xor's xor_blocks) lose their ids when it is unloaded and get new,
# higher ones when it loads again; getppid's id stays throughout.
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
id=$(cat "$res/list_id")
echo "syscall::getppid:entry is probe ${id:-?}"
case "$id" in
[0-9]*) [ "$id" -gt 3 ] || kv_fail "getppid:entry has dtrace's id $id" ;;
*) kv_fail "list_n: no syscall::getppid:entry line" ;;
esac
for n in list_all list_n list_glob list_s list_i; do
	got=$(awk '$2 == "syscall" && $3 == "getppid" && $4 == "entry" {
	    print $1 }' "$res/$n.out")
	[ "$got" = "$id" ] ||
	    kv_fail "$n: syscall::getppid:entry is probe '$got', want $id"
done
[ "$(wc -l < "$res/list_i.out")" = 2 ] ||
    kv_fail "list_i: kdt -l -i $id lists more than its probe"
fbt=$(awk '$2 == "fbt" && $5 == "entry" { print $1 }' "$res/list_f.out")
[ -n "$fbt" ] && [ "$fbt" = "$(awk '$2 == "fbt" && $5 == "entry" {
    print $1 }' "$res/list_mf.out")" ] ||
    kv_fail "list_f/list_mf: fbt::__x64_sys_getppid:entry ids differ"
kv_live_rc "$res" list_i 0
kv_live_rc "$res" list_ibad 2
grep -q '^kdt: -i 4000000000: no probe has this id' "$res/list_ibad.err" ||
    kv_fail "list_ibad: no 'no probe has this id' message"
for n in ids_a ids_b; do
	kv_live_rc "$res" $n 0
	echo "$n: $(sed -n 2p "$res/$n.out")"
	[ "$(sed -n 1p "$res/$n.out" | tr -s ' ')" = \
	    "CPU ID FUNCTION:NAME" ] || kv_fail "$n: no default heading"
	[ "$(awk 'NR == 2 { print $2 }' "$res/$n.out")" = "$id" ] ||
	    kv_fail "$n: the ID column is not $id"
	[ "$(awk 'NR == 2 { print $3 }' "$res/$n.out")" = getppid:entry ] ||
	    kv_fail "$n: the probe is not getppid:entry"
done
for n in modid1 modid2 modid3; do
	kv_live_rc "$res" $n 0
done
x1=$(awk '$2 == "fbt" && $3 == "xor" { print $1 }' "$res/modid1.out")
x3=$(awk '$2 == "fbt" && $3 == "xor" { print $1 }' "$res/modid3.out")
echo "fbt:xor:xor_blocks:entry: probe ${x1:-?}, after rmmod and modprobe ${x3:-?}"
[ -n "$x1" ] && [ -n "$x3" ] && [ "$x3" -gt "$x1" ] && [ "$x1" -gt 3 ] ||
    kv_fail "modid: xor's probe did not get a new id when xor came back"
grep -q '^kdt: failed to match fbt:xor:xor_blocks:entry' "$res/modid2.err" ||
    kv_fail "modid2: xor_blocks still listed after rmmod xor"
for n in modid1 modid2 modid3; do
	got=$(awk '$2 == "syscall" && $3 == "getppid" && $4 == "entry" {
	    print $1 }' "$res/$n.out")
	[ "$got" = "$id" ] ||
	    kv_fail "$n: syscall::getppid:entry is probe '$got', want $id"
done
{
	echo "== list_all"
	sed -E '2,$s/^ *[0-9]+ /    N /' "$res/list_all.out"
	for n in $names; do
		echo "== $n"
		cat "$res/$n.out" "$res/$n.err" |
		    sed -E 's/^ *([4-9]|[1-9][0-9]+) /    N /'
	done
} | diff -u "$(dirname "$0")/tst.live-list.out" - ||
    kv_fail "listing differs from tst.live-list.out"
echo "PASS"
