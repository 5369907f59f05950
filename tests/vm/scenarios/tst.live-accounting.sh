#!/usr/bin/env bash
#
# tst.live-accounting: exact accounting under load (tests/vm/progs/
# accounting.sh in one boot).  /bin/seqcall makes N getppid() calls on
# every CPU at once, each pinned, with a sequence number in arg0, so
# every firing can be told apart.  count() through the syscall provider
# and through fbt gives exactly N per CPU.  printf() of every firing into
# a one-page buffer: under the switch policy every firing is either
# printed once or counted in "N drops on CPU M" -- printed + dropped = N
# on each CPU, nothing duplicated, each CPU's records in order, whether
# the consumer switches buffers once a second or 100 times; under
# ring the records left are the newest, consecutive up to the last call;
# under fill they are the oldest, consecutive from the first call, and
# printed + dropped never exceeds N.  With a 4 MB buffer nothing is
# dropped and all N per CPU are printed.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-accounting.XXXXXX")
trap 'rm -rf "$work"' EXIT
N=20000

gcc -static -O2 -o "$work/seqcall" "$KV_PROGS/seqcall.c" ||
    kv_fail "cannot build the static seqcall"
"$KV_VM" --add-kdt --timeout 600 \
    --add "$KV_PROGS/accounting.sh:/accounting.sh" \
    --add "$work/seqcall:/bin/seqcall" \
    --run "N=$N sh /accounting.sh" --guest-out "$work/results.tgz" \
    --workdir "$work/vm" --quiet || kv_fail "boot failed"
r="$work/r"
mkdir -p "$r"
tar -xzf "$work/results.tgz" -C "$r" || kv_fail "no results"
ncpu=$(cat "$r/ncpu")
[ "$ncpu" -ge 2 ] || kv_fail "the guest has $ncpu CPUs; the test needs 2"

rc0()
{
	[ "$(cat "$r/$1.rc")" = 0 ] || {
		cat "$r/$1.err"
		kv_fail "$1: exit status $(cat "$r/$1.rc")"
	}
}

# count(): exactly N per CPU
for t in count_sys count_fbt; do
	rc0 $t
	for c in $(seq 0 $((ncpu - 1))); do
		grep -qx "cpu $c $N" "$r/$t.out" || {
			cat "$r/$t.out" "$r/$t.err"
			kv_fail "$t: CPU $c did not count exactly $N"
		}
	done
done

# judge POLICY: per CPU, what was printed and what was reported dropped
judge()
{
	awk -v pol="$1" -v n="$N" -v ncpu="$ncpu" -v errf="$r/trace_$1.err" '
	BEGIN {
		while ((getline l < errf) > 0)
			if (match(l, /^kdt: [0-9]+ drops? on CPU [0-9]+$/)) {
				split(l, w, " ")
				drops[w[6]] += w[2]
			}
	}
	NF == 0 { next }	# dtrace ends its output with an empty line
	NF != 2 { print pol ": unexpected line: " $0; bad = 1; next }
	{
		c = $1; v = $2; base = (c + 1) * 10000000
		if (v <= base || v > base + n) {
			print pol ": CPU " c " printed " v ", not one of its own calls"
			bad = 1
		}
		if (seen[v]++) { print pol ": " v " printed twice"; bad = 1 }
		if (c in last && v <= last[c]) {
			print pol ": CPU " c ": " v " after " last[c]; bad = 1
		}
		if (!(c in first))
			first[c] = v
		if (c in last && v != last[c] + 1)
			gaps[c]++
		last[c] = v; cnt[c]++
	}
	END {
		for (c = 0; c < ncpu; c++) {
			base = (c + 1) * 10000000
			d = drops[c] + 0; k = cnt[c] + 0
			printf("%s: CPU %d: %d printed, %d dropped", pol, c, k, d)
			if (k > 0)
				printf(", first %d, last %d", first[c] - base, last[c] - base)
			printf("\n")
			if (pol ~ /^switch/ || pol == "big") {
				if (k + d != n) {
					print pol ": CPU " c ": printed + dropped = " k + d ", want " n
					bad = 1
				}
			}
			if (pol == "big" && d != 0) { print "big: drops"; bad = 1 }
			if (pol == "ring") {
				if (k == 0 || last[c] != base + n || gaps[c] > 0) {
					print "ring: CPU " c ": not the newest records, consecutive up to call " n
					bad = 1
				}
			}
			if (pol == "fill") {
				if (k == 0 || first[c] != base + 1 || gaps[c] > 0 || k + d > n) {
					print "fill: CPU " c ": not the oldest records, consecutive from call 1"
					bad = 1
				}
			}
		}
		exit bad
	}' "$r/trace_$1.out"
}

for pol in switch switchfast ring fill big; do
	rc0 trace_$pol
	judge $pol || {
		head -5 "$r/trace_$pol.err"
		kv_fail "trace_$pol: the accounting does not add up"
	}
done
trouble='Oops|BUG:|WARNING:|Call Trace|soft lockup|rcu.*stall'
if grep -Eq "$trouble" "$r/dmesg"; then
	grep -E -A20 "$trouble" "$r/dmesg"
	kv_fail "the kernel log shows trouble"
fi
echo "PASS"
