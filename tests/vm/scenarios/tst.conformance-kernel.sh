#!/usr/bin/env bash
#
# tst.conformance-kernel: the D conformance suite (tests/conformance/),
# which `make check` runs on the userspace engine, run on kdt.ko in a
# guest -- both engines must give the same output.  The host's runner
# records the command of every program (tests/conformance/kdt-record,
# with -x engine=kernel), the guest (one CPU, so the CPU column and the
# cpu variable are 0 as on the pinned host run) runs them all with
# tests/vm/progs/conf.sh, and the runner then judges the guest's results
# (kdt-replay) against the very same expected files.  Programs that
# differ on the kernel engine for a known reason are listed, with it, in
# tests/conformance/KNOWN-FAILING-KERNEL.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-conf.XXXXXX")
trap '[ -n "${KDT_KEEP:-}" ] || rm -rf "$work"' EXIT
conf="$KV_TOP/tests/conformance"

export KDT_RECORD="$work/list"
: > "$KDT_RECORD"
"$conf/run" --engine kernel --kdt "$conf/kdt-record" > /dev/null 2>&1 || true
n=$(wc -l < "$KDT_RECORD")
[ "$n" -ge 200 ] || kv_fail "only $n programs recorded"
echo "recorded $n programs"
tar -czf "$work/conf.tgz" -C / "${conf#/}"
"$KV_VM" --add-kdt --smp 1 --timeout 1500 \
    --add "$work/conf.tgz:/conf.tgz" --add "$KDT_RECORD:/conf/list" \
    --add "$KV_PROGS/conf.sh:/conf.sh" \
    --run 'tar -xzf /conf.tgz -C / && sh /conf.sh' \
    --guest-out "$work/results.tgz" --workdir "$work/vm" --quiet ||
    kv_fail "boot failed"
mkdir -p "$work/r"
tar -xzf "$work/results.tgz" -C "$work/r" || kv_fail "no results"
rc=0
KDT_RESULTS="$work/r" "$conf/run" --engine kernel --kdt "$conf/kdt-replay" \
    --known "$conf/KNOWN-FAILING-KERNEL" > "$work/report" 2>&1 || rc=$?
grep -v '^ok ' "$work/report"
[ "$rc" = 0 ] || kv_fail "the kernel engine differs (see above)"
echo "PASS"
