#!/usr/bin/env bash
#
# tst.demo-path: the walking skeleton end to end, exactly the demo's path.
# examples/boot.d is the anonymous enabling; the guest loads four Debian
# modules and panics; QEMU writes an ELF dump; kdt-extract, with no
# debuginfo, must print dtrace's default record format: the header line,
# then per record the CPU (0 or 1: -smp 2), the probe ID and FUNCTION:NAME
# (":BEGIN", "do_init_module:entry") and the printf text -- one
# "init module NAME" per module the guest loaded, each CPU's records in
# load order (dtrace prints CPU after CPU; lib.sh kv_check_order).  With
# the CPU column replaced by 'C' and the lines sorted, the output must
# equal tst.demo-path.out.
#
. "$(dirname "$0")/../lib.sh"

dump=$(kv_demo_dump)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$KV_EXTRACT" "$dump" > "$out" || kv_fail "kdt-extract $dump exited $?"
cat "$out"

head -1 "$out" | grep -Eq '^CPU +ID +FUNCTION:NAME$' ||
    kv_fail "first line is not dtrace's CPU/ID/FUNCTION:NAME header"
grep -Eq '^  [01] +1 +:BEGIN kdt: tracing module initialisation$' "$out" ||
    kv_fail "no BEGIN record (probe ID 1) with CPU/ID columns"
n=$(grep -Ec '^  [01] +[0-9]+ +do_init_module:entry init module [a-z0-9_]+$' \
    "$out" || true)
[ "$n" -eq 7 ] || kv_fail "want 7 do_init_module:entry records, got $n"
kv_check_order "$out" || kv_fail "records are not what the guest did"
kv_compare "$(dirname "$0")/tst.demo-path.out" "$out" ||
    kv_fail "kdt-extract output differs from tst.demo-path.out"
echo "PASS"
