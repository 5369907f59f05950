#!/usr/bin/env bash
#
# tst.crash-ext: inside crash(8), "extend kdt.so" then "kdt" prints byte
# for byte what kdt-extract prints for the same dump.  The demo dump
# (lib.sh kv_demo_dump: examples/boot.d traced the boot, the guest loaded
# the demo modules and panicked; QEMU wrote an ELF dump) is opened with
# crash -s and the pinned kernel's DWARF vmlinux (mk/kernel-dbg.sh: the
# -dbg package, downloaded once into a host-wide cache -- without network
# and without a cached .deb this scenario fails, saying so).  In one crash
# session each kdt command's output, between "echo" markers, must equal
# kdt-extract's stdout: "kdt" and kdt-extract, "kdt -q -m" and -q --merge,
# "kdt -p 10000000" and --phys 0x10000000; "kdt -p 1000000" (no region
# there) must print kdt-extract's stderr message under the name "kdt".
# Then the same demo workload is booted again with a kdump-zlib dump
# (QEMU writes it flattened; crash reads that directly) and "kdt" must
# equal kdt-extract on that file.  "help kdt" must print crash's help
# layout (NAME, SYNOPSIS, DESCRIPTION, EXAMPLES) with the command's
# synopsis, each of its options and the man page that explains its
# messages.  Times (crash start, each kdt command) are printed in the log.
#
. "$(dirname "$0")/../lib.sh"

KV_CRASHEXT="$KV_TOP/build/lib/kdt.so"
KV_DBG="$KV_TOP/build/kernel-dbg"
M=KDT-CRASH-EXT-MARK

kv_need_all
[ -f "$KV_CRASHEXT" ] || kv_fail "build/lib/kdt.so: missing (run 'make')"
command -v crash > /dev/null || kv_fail "crash(8) is not installed (run 'make deps')"
bash "$KV_TOP/mk/kernel-dbg.sh" "$KV_DBG" ||
    kv_fail "no DWARF vmlinux for crash(8): mk/kernel-dbg.sh failed (above); it needs the network once, then the cached .deb"
work=$(mktemp -d "$KV_TOP/build/vm-crash-ext.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The crash commands: each kdt command between two markers, with the
# time before and after it appended to $work/times by a shell escape.
# Arguments: a tag and the kdt arguments, one "tag|args" per command
# ("tag|!command": another crash command).
crash_cmds()
{
	local t args

	echo "set scroll off"
	echo "!date +start%s.%N >> $work/times"
	echo "extend $KV_CRASHEXT"
	for t in "$@"; do
		args=${t#*|}
		echo "!date +${t%%|*}-a%s.%N >> $work/times"
		echo "echo $M-begin-${t%%|*}"
		case $args in
		'!'*) echo "${args#!}" ;;
		*) echo "kdt $args" ;;
		esac
		echo "echo $M-end-${t%%|*}"
		echo "!date +${t%%|*}-b%s.%N >> $work/times"
	done
	echo "q"
}

# Run crash on dump $1 with the commands for the remaining arguments;
# its stdout goes to $work/crash.out.
run_crash()
{
	local dump=$1 t0 rc=0

	shift
	crash_cmds "$@" > "$work/cmds"
	: > "$work/times"
	t0=$(date +%s.%N)
	timeout 600 crash -s "$KV_DBG/vmlinux" "$dump" < "$work/cmds" \
	    > "$work/crash.out" 2> "$work/crash.err" || rc=$?
	echo "crash on $(basename "$dump"): $(echo "$(date +%s.%N) - $t0" |
	    awk '{ printf "%.1f", $1 - $3 }') s in all, exit $rc"
	python3 - "$t0" "$work/times" <<'PY'
import re, sys
t0, marks = float(sys.argv[1]), {}
for line in open(sys.argv[2]):
    m = re.match(r"^(\S+?)(-a|-b)?(\d+\.\d+)$", line.strip())
    marks[m.group(1) + (m.group(2) or "")] = float(m.group(3))
print("  crash start (to the first command): %.1f s" % (marks["start"] - t0))
for k in [k[:-2] for k in marks if k.endswith("-a")]:
    print("  kdt %-6s %.2f s" % (k, marks[k + "-b"] - marks[k + "-a"]))
PY
	[ "$rc" -eq 0 ] || { cat "$work/crash.err"; kv_fail "crash exited $rc"; }
	grep -q 'kdt.so: shared object loaded' "$work/crash.out" ||
	    { cat "$work/crash.out" "$work/crash.err"
	      kv_fail "crash did not load kdt.so"; }
}

# The bytes crash printed for command tag $1 (between its markers).
crash_part()
{
	python3 - "$work/crash.out" "$M-begin-$1" "$M-end-$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
b, e = sys.argv[2].encode() + b"\n", sys.argv[3].encode() + b"\n"
if data.startswith(b):
    i = len(b)
else:
    i = data.find(b"\n" + b)
    if i < 0:
        sys.exit("marker %s not in crash's output" % sys.argv[2])
    i += 1 + len(b)
j = data.find(e, i)
if j < 0:
    sys.exit("marker %s not in crash's output" % sys.argv[3])
sys.stdout.buffer.write(data[i:j])
PY
}

# Compare crash's part $1 with file $2 byte for byte.
same()
{
	crash_part "$1" > "$work/part.$1" || kv_fail "no output for kdt ($1)"
	if ! cmp -s "$work/part.$1" "$2"; then
		diff -u --label "kdt-extract" --label "crash: kdt ($1)" \
		    "$2" "$work/part.$1" || true
		od -c "$work/part.$1" | tail -3
		kv_fail "crash's kdt ($1) differs from kdt-extract"
	fi
	echo "  kdt ($1): $(wc -c < "$2") bytes, same as kdt-extract"
}

# --- the ELF dump of the demo ---
dump=$(kv_demo_dump)
"$KV_EXTRACT" "$dump" > "$work/x.all" || kv_fail "kdt-extract exited $?"
"$KV_EXTRACT" -q --merge "$dump" > "$work/x.qm" ||
    kv_fail "kdt-extract -q --merge exited $?"
"$KV_EXTRACT" --phys 0x10000000 "$dump" > "$work/x.phys" ||
    kv_fail "kdt-extract --phys exited $?"
rc=0
"$KV_EXTRACT" --phys 0x1000000 "$dump" > /dev/null 2> "$work/x.none" || rc=$?
[ "$rc" -eq 1 ] || kv_fail "kdt-extract --phys 0x1000000 exited $rc, want 1"
sed 's/^kdt-extract: /kdt: /' "$work/x.none" > "$work/x.none.kdt"

run_crash "$dump" "all|" "qm|-q -m" "phys|-p 10000000" "none|-p 1000000" \
    "help|!help kdt"
echo "--- crash: kdt on the ELF dump:"
crash_part all
same all "$work/x.all"
same qm "$work/x.qm"
same phys "$work/x.phys"
same none "$work/x.none.kdt"
kv_check_order "$work/part.all" || kv_fail "records are not what the guest did"
crash_part help > "$work/part.help" || kv_fail "no output for help kdt"
echo "--- crash: help kdt:"
cat "$work/part.help"
for re in '^NAME$' '^  kdt - print what kdt traced' '^SYNOPSIS$' \
    '^  kdt \[-q\] \[-m\] (.* )?\[-p physaddr\]$' '^DESCRIPTION$' '^ +-q  quiet' \
    '^ +-m  \(or --merge\)' '^  -p physaddr$' '^EXAMPLES$' \
    '^ +crash> kdt -q -m$' 'kdt-extract\(1\) man page, section DIAGNOSTICS'; do
	grep -Eq -- "$re" "$work/part.help" ||
	    kv_fail "help kdt: no line matching /$re/ (crash's help layout)"
done

# --- the same workload, dumped as kdump-zlib ---
"$KV_VM" --script "$KV_SCRIPT" --load "$KV_MODULES" --smp "$KV_SMP" \
    --panic --dump "$work/dump.kdump" --dump-format kdump-zlib \
    --workdir "$work/vm" --prefix 'guest| ' --quiet ||
    kv_fail "kdump-zlib boot failed"
"$KV_EXTRACT" "$work/dump.kdump" > "$work/x.kdump" ||
    kv_fail "kdt-extract dump.kdump exited $?"
run_crash "$work/dump.kdump" "kdump|"
echo "--- crash: kdt on the kdump-zlib dump:"
crash_part kdump
same kdump "$work/x.kdump"
echo "PASS"
